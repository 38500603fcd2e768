"""You hold a release: the workflow's ``releases`` section (docs/your-release.md).

Per config entry (``releases.entries.<name>``): :mod:`.run` reads the release file
(:func:`dpinfer.releases.spec.release_of`), runs every noise-aware posterior of its model with
the naive one beside it (:mod:`dpinfer.releases.model_methods`) and writes the draws and the
per-parameter table; :mod:`.figures` draws the marginals. No source document: the outputs are
a user's answers, not scorecard rows; results/summary.md gets one line per release.
"""
