# You hold a release (issue 48; no source document; docs/your-release.md): per entry of
# releases.entries, every noise-aware posterior of its model with the naive one beside it. The
# release file is an input of its job, so an edit of the file reruns that entry's jobs only.
validate_section(["releases"], "releases")
REL = config["releases"]
REL_DIR = f"{RESULTS}/releases"
REL_LOGS = f"{LOGS}/releases"

check_config("releases", REL)

for _name in REL["entries"]:
    figure(
        "releases",
        f"{_name}_marginals",
        "releases.figures:marginals",
        {"draws": f"{REL_DIR}/{_name}/draws.npz"},
        report_as=("marginals", _name),
        name=_name,
    )
    table("releases", f"{_name}_posterior", report_as=("posterior", _name))
    RELEASE_DIGESTS.append(f"{REL_DIR}/{_name}/digest.json")


wildcard_constraints:
    release="|".join(REL["entries"]) or "$^",


rule releases_posterior:
    input:
        released=lambda w: user_file(REL["entries"][w.release]["file"]),
    output:
        draws=f"{REL_DIR}/{{release}}/draws.npz",
        digest=f"{REL_DIR}/{{release}}/digest.json",
        csv=f"{REL_DIR}/{{release}}_posterior.csv",
        md=f"{REL_DIR}/{{release}}_posterior.md",
    log:
        f"{REL_LOGS}/{{release}}.log",
    resources:
        runtime=30,
    params:
        step=step("releases.run:posterior"),
        name="{release}",
        entry=lookup(dpath="{release}", within=REL["entries"]),
        settings={
            "seed": config["seed"],
            **{k: REL[k] for k in ("chains", "burnin", "keep", "max_keep", "draws")},
        },
        credible_level=REL["credible_level"],
    script:
        STEP_SCRIPT
