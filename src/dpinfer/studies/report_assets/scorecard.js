
(function () {
  "use strict";
  var byId = function (id) { return document.getElementById(id); };
  var groups = Array.prototype.slice.call(document.querySelectorAll("tbody.group"));
  var study = byId("f-study"), target = byId("f-target"), verdict = byId("f-verdict"),
      converged = byId("f-converged"), text = byId("f-text"), headline = byId("f-headline");
  var total = document.querySelectorAll("tr.row").length;
  function fillTargets() {
    var keep = target.value;
    while (target.options.length > 1) { target.remove(1); }
    groups.forEach(function (g) {
      if (!study.value || g.dataset.study === study.value) {
        target.add(new Option(g.dataset.label, g.id));
      }
    });
    target.value = keep;
    if (target.value !== keep) { target.value = ""; }
  }
  function rowMatches(row) {
    var v = verdict.value, rv = row.dataset.verdict;
    if (v === "differs" ? rv.indexOf("differs") !== 0 : (v && rv !== v)) { return false; }
    if (converged.value && row.dataset.converged !== converged.value) { return false; }
    if (headline.checked && row.dataset.headline !== "1") { return false; }
    var t = text.value.trim().toLowerCase();
    if (!t) { return true; }
    var words = row.textContent;
    var next = row.nextElementSibling;
    if (next && next.classList.contains("detail")) { words += " " + next.textContent; }
    return words.toLowerCase().indexOf(t) >= 0;
  }
  function apply() {
    var shown = 0;
    groups.forEach(function (g) {
      var inGroup = (!study.value || g.dataset.study === study.value) &&
                    (!target.value || g.id === target.value);
      var n = 0;
      g.querySelectorAll("tr.row").forEach(function (row) {
        var on = inGroup && rowMatches(row);
        row.hidden = !on;
        var next = row.nextElementSibling;
        if (next && next.classList.contains("detail")) { next.hidden = !on; }
        if (on) { n += 1; }
      });
      g.hidden = n === 0;
      shown += n;
    });
    byId("f-count").textContent = shown + " of " + total + " rows";
    byId("f-none").hidden = shown > 0;
  }
  function reset() {
    study.value = ""; verdict.value = ""; converged.value = ""; text.value = "";
    headline.checked = false; fillTargets(); target.value = "";
  }
  function slug(text) { return text.toLowerCase().replace(/[^a-z]+/g, "-").replace(/^-|-$/g, ""); }
  function fromAddress() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id ? byId(id) : null;
    var kind = id.split("-")[0], rest = id.slice(kind.length + 1);
    if (kind === "target" || kind === "study" || kind === "verdict") {
      reset();
      if (el && el.classList.contains("group")) {
        study.value = el.dataset.study; fillTargets(); target.value = el.id;
      } else if (kind === "study") {
        study.value = rest; if (study.value !== rest) { study.value = ""; }
        fillTargets();
      } else if (kind === "verdict") {
        Array.prototype.forEach.call(verdict.options, function (o) {
          if (o.value && slug(o.value) === rest) { verdict.value = o.value; }
        });
      }
      apply();
      byId("f-missing").hidden = !!el || kind !== "target";
      byId("f-missing-id").textContent = rest;
      reveal(el && el.querySelector("tr.group-head"));
    }
  }
  function reveal(el) {  // just below the sticky filters (the browser's own jump hides it)
    var bar = byId("filters");
    var top = el ? el.getBoundingClientRect().top + window.scrollY - bar.offsetHeight - 4
                 : bar.parentNode.offsetTop;
    window.scrollTo(0, Math.max(0, top));
  }
  study.addEventListener("change", function () { fillTargets(); apply(); });
  [target, verdict, converged, headline].forEach(function (c) {
    c.addEventListener("change", apply);
  });
  text.addEventListener("input", apply);
  byId("f-reset").addEventListener("click", function () {
    reset(); apply(); byId("f-missing").hidden = true;
  });
  document.querySelectorAll("button[data-verdict]").forEach(function (b) {
    b.addEventListener("click", function () {
      verdict.value = b.dataset.verdict; apply(); reveal(null);
    });
  });
  window.addEventListener("hashchange", fromAddress);
  window.addEventListener("load", fromAddress);
  byId("filters").hidden = false;
  fillTargets();
  apply();
  fromAddress();
})();
