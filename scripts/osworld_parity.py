#!/usr/bin/env python3
"""Score a parity fixture with OSWorld's own metric functions.

For every case in --cases (a cases.json as written by
crates/benchmarks/osworld/tests/parity/gen.py) this calls the OSWorld metric named by
`func` as

    metric(<files dir>/<result> or None, <files dir>/<expected>, **options)

and prints one JSON line per case to stdout:

    {"name": ..., "score": <float>}        or
    {"name": ..., "error": "<ExcType>: <message>"}   when the metric raises.

With --write-expected PATH it also writes a JSON object {name: score | "error: ..."}
(this is how crates/benchmarks/osworld/tests/parity/expected.json is produced).

The metric modules are loaded by file path from the *installed* desktop-env package of
the interpreter running this script (found with importlib.util.find_spec, i.e. in its
site-packages).  desktop_env/evaluators/metrics/__init__.py imports every metric
module (chrome, gimp, vlc, easyocr/torch, playwright, ...), so it is never executed:
the parent packages desktop_env, desktop_env.evaluators and
desktop_env.evaluators.metrics are replaced by empty stub packages whose __path__
points at the real folders, and only the needed modules are executed:

    compare_table       -> metrics/table.py   (imports metrics/utils.py)
    compare_docx_files  -> metrics/docs.py
    compare_pptx_files  -> metrics/slides.py
    compare_text_file   -> metrics/vscode.py  (not general.py)
    anything else       -> searched in general.py, table.py, docs.py, slides.py, vscode.py, basic_os.py,
                           chrome.py (imports bs4 and rapidfuzz; compare_urls needs tldextract,
                           whose shipped public suffix list is read, never fetched), vlc.py, gimp.py,
                           thunderbird.py

Optional heavy imports that those modules do at module level but that the compared
functions never use are stubbed with empty modules *only when not installed*:
easyocr (docs.py; pulls torch), skimage / skimage.color (docs.py), formulas and
tldextract (utils.py; formulas pulls scipy), PyPDF2 (vscode.py), fitz, imagehash and borb
(chrome.py's PDF comparisons), acoustid, cv2, librosa, fastdtw, scipy and skimage.metrics
(vlc.py's audio and video comparisons). scikit-image itself is installed: gimp.py's and vlc.py's
image comparisons use its SSIM.

Environment (desktop-env 1.0.2 needs Python >= 3.10; ~20 s, ~250 MB venv):

    python3 -m venv /tmp/dtenv
    /tmp/dtenv/bin/pip install desktop-env==1.0.2 --no-deps
    /tmp/dtenv/bin/pip install openpyxl "pandas>=2.2,<2.3" "numpy>=1.26,<2" rapidfuzz lxml cssselect xmltodict python-docx python-pptx odfpy "Pillow~=11.0.0" "scikit-image>=0.24,<0.27"

(the pandas/numpy/Pillow pins are desktop-env 1.0.2's own Requires-Dist; expected.json
was produced with pandas 2.2.3, numpy 1.26.4, openpyxl 3.1.5, python-docx 1.2.0,
python-pptx 1.0.2, rapidfuzz 3.14.6).

Usage:
    /tmp/dtenv/bin/python scripts/osworld_parity.py \\
        --cases crates/benchmarks/osworld/tests/parity/cases.json \\
        [--write-expected crates/benchmarks/osworld/tests/parity/expected.json] [--verbose]
"""
import argparse
import atexit
import shutil
import tempfile
import warnings
import contextlib
import importlib.metadata
import importlib.util
import json
import logging
import os
import sys
import types

FUNC_MODULE = {
    "compare_table": "table",
    "compare_docx_files": "docs",
    "compare_pptx_files": "slides",
    "compare_text_file": "vscode",
    "check_accessibility_tree": "general",
    "check_mp3_meta": "others",
    "compare_pdfs": "chrome",
    "check_pdf_pages": "pdf",
}
FALLBACK_MODULES = ["general", "table", "docs", "slides", "vscode", "basic_os", "chrome", "vlc", "gimp", "thunderbird"]
PKG = "desktop_env.evaluators.metrics"


def _installed(name):
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _stub_optional_imports():
    if not _installed("easyocr"):
        sys.modules["easyocr"] = types.ModuleType("easyocr")
    if not _installed("skimage"):
        sk = types.ModuleType("skimage")
        skc = types.ModuleType("skimage.color")

        def _unavailable(*a, **k):
            raise ImportError("scikit-image is not installed (stubbed by osworld_parity.py)")
        skc.deltaE_ciede2000 = skc.rgb2lab = _unavailable
        sk.color = skc
        sys.modules["skimage"] = sk
        sys.modules["skimage.color"] = skc
    # general.py (check_accessibility_tree) imports pdfplumber and yaml for other metrics.
    for name in ("formulas", "tldextract", "PyPDF2", "pdfplumber", "yaml", "fitz", "imagehash"):
        if not _installed(name):
            sys.modules[name] = types.ModuleType(name)
    # vlc.py's audio, video and image comparisons import these by name; the metrics pinned
    # here never call them.
    for name in ("acoustid", "cv2", "librosa", "fastdtw", "scipy", "scipy.spatial", "scipy.spatial.distance", "skimage.metrics"):
        if _installed(name.split(".")[0]) or name in sys.modules:
            continue
        stub = types.ModuleType(name)

        def _missing(attr, _name=name):
            def _unavailable(*a, **k):
                raise ImportError("%s is not installed (stubbed by osworld_parity.py)" % _name)
            return _unavailable
        stub.__getattr__ = _missing
        sys.modules[name] = stub
    # chrome.py's PDF comparisons import borb's classes by name.
    if not _installed("borb"):
        for name in ("borb", "borb.pdf"):
            sys.modules[name] = types.ModuleType(name)
        sys.modules["borb.pdf"].Document = sys.modules["borb.pdf"].PDF = None
    # compare_urls reads the public suffix list through tldextract, which would fetch it
    # first: the copy the package ships is read instead (no network here).
    if _installed("tldextract"):
        import tldextract
        tldextract.extract = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)


def _desktop_env_root():
    spec = importlib.util.find_spec("desktop_env")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("desktop-env is not installed for %s; see the pip line in this script's docstring"
                 % sys.executable)
    root = list(spec.submodule_search_locations)[0]
    metrics = os.path.join(root, "evaluators", "metrics")
    if not os.path.isfile(os.path.join(metrics, "table.py")):
        sys.exit("no evaluators/metrics/table.py under %s" % root)
    try:
        version = importlib.metadata.version("desktop-env")
    except importlib.metadata.PackageNotFoundError:
        version = "?"
    if version != "1.0.2":
        print("warning: desktop-env %s (fixture verdicts were made with 1.0.2)" % version, file=sys.stderr)
    return root


class Metrics:
    def __init__(self, root):
        self.root = root
        self.metrics_dir = os.path.join(root, "evaluators", "metrics")
        for name, path in [("desktop_env", root),
                           ("desktop_env.evaluators", os.path.join(root, "evaluators")),
                           (PKG, self.metrics_dir)]:
            m = types.ModuleType(name)
            m.__path__ = [path]  # submodules (e.g. metrics.utils) resolve to the real files
            sys.modules[name] = m
        self.modules = {}

    def module(self, mod):
        if mod not in self.modules:
            full = PKG + "." + mod
            spec = importlib.util.spec_from_file_location(full, os.path.join(self.metrics_dir, mod + ".py"))
            m = importlib.util.module_from_spec(spec)
            sys.modules[full] = m
            with contextlib.redirect_stdout(sys.stderr):
                spec.loader.exec_module(m)
            self.modules[mod] = m
        return self.modules[mod]

    def func(self, name):
        if name in FUNC_MODULE:
            return getattr(self.module(FUNC_MODULE[name]), name)
        for mod in FALLBACK_MODULES:
            f = getattr(self.module(mod), name, None)
            if f is not None:
                return f
        raise AttributeError("metric %r not found in %s" % (name, FALLBACK_MODULES))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", required=True, help="cases.json; files live in <its folder>/files")
    ap.add_argument("--files", help="folder holding the fixture files (default: <cases folder>/files)")
    ap.add_argument("--write-expected", metavar="PATH", help="also write {name: score|'error: ...'} JSON here")
    ap.add_argument("--check", metavar="PATH", help="exit 1 unless the verdicts equal this expected.json")
    ap.add_argument("--quiet", action="store_true", help="no JSON line per case")
    ap.add_argument("--only", action="append", help="run only these case names (repeatable)")
    ap.add_argument("--verbose", action="store_true", help="keep OSWorld's logging/debug output (stderr)")
    args = ap.parse_args()

    if not args.verbose:
        logging.disable(logging.CRITICAL)
        warnings.simplefilter("ignore")
        # compare_pptx_files(enable_debug=True by default) attaches a StreamHandler to
        # this logger unless it already has one.
        logging.getLogger("desktopenv.metric.slides.debug").addHandler(logging.NullHandler())

    _stub_optional_imports()
    metrics = Metrics(_desktop_env_root())

    with open(args.cases) as f:
        cases = json.load(f)
    fixture = args.files or os.path.join(os.path.dirname(os.path.abspath(args.cases)), "files")
    # The metrics run on a copy: some write beside the files they read (compare_archive
    # unpacks next to each archive), which must not land in the checkout.
    scratch = tempfile.mkdtemp(prefix="osworld-parity-")
    atexit.register(shutil.rmtree, scratch, True)
    files = os.path.join(scratch, "files")
    shutil.copytree(fixture, files)

    sink = sys.stderr if args.verbose else open(os.devnull, "w")
    verdicts = {}
    for c in cases:
        if args.only and c["name"] not in args.only:
            continue
        # A multi getter's several files (compare_unique_train_records' gold and initial
        # documents, compare_pdfs' lists): a list of paths, None for a file it did not find.
        if isinstance(c.get("result"), list):
            result = [os.path.join(files, r) if r else None for r in c["result"]]
        else:
            result = os.path.join(files, c["result"]) if c.get("result") else None
        if isinstance(c.get("expected"), list):
            expected = [os.path.join(files, e) if e else None for e in c["expected"]]
        else:
            expected = os.path.join(files, c["expected"]) if c.get("expected") else None
        # Metrics that take a getter's text or a rule rather than a file path
        # (check_accessibility_tree: the tree's XML, then the rules).
        if result and c.get("result_as") == "text":
            # As the getter gives it: line ends untouched (a CR is part of the text).
            with open(result, newline="") as f:
                result = f.read()
        if result and c.get("result_as") == "json":
            with open(result) as f:
                result = json.load(f)
        if expected and c.get("expected_as") == "text":
            # A command's output as the expected value (is_in_vm_clickboard takes its getters
            # the other way round: the rule first, then what the command printed).
            with open(expected, newline="") as f:
                expected = f.read()
        if expected and c.get("expected_as") == "json":
            with open(expected) as f:
                expected = json.load(f)
        out = {"name": c["name"]}
        try:
            fn = metrics.func(c["func"])
            # several metrics print() diagnostics; keep stdout for the JSON lines
            # `expected_as: absent`: a metric of the result alone (is_first_line_centered).
            given = (result,) if c.get("expected_as") == "absent" else (result, expected)
            with contextlib.redirect_stdout(sink):
                score = fn(*given, **(c.get("options") or {}))
            out["score"] = float(score)
            verdicts[c["name"]] = out["score"]
        except Exception as e:  # OSWorld raising is itself a verdict worth pinning
            # The fixture's folder is where the checkout is: pinned messages name it <files>.
            msg = ("%s: %s" % (type(e).__name__, e)).replace(os.path.abspath(files), "<files>")
            out["error"] = msg
            verdicts[c["name"]] = "error: " + msg
        if not args.quiet:
            print(json.dumps(out), flush=True)

    if args.write_expected:
        with open(args.write_expected, "w") as f:
            json.dump(verdicts, f, indent=1)
            f.write("\n")

    if args.check:
        with open(args.check) as f:
            pinned = json.load(f)

        def same(a, b):
            if isinstance(a, float) and isinstance(b, (int, float)):
                return abs(a - b) < 1e-9
            return a == b

        differ = [n for n in set(pinned) | set(verdicts) if not same(verdicts.get(n), pinned.get(n))]
        for n in sorted(differ):
            print("parity: %s: OSWorld now gives %r, %s pins %r" % (n, verdicts.get(n), args.check, pinned.get(n)), file=sys.stderr)
        if differ:
            sys.exit(1)
        print("parity: OSWorld's metrics give the pinned verdict on all %d cases" % len(verdicts), file=sys.stderr)


if __name__ == "__main__":
    main()
