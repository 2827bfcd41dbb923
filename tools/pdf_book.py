"""The PDF edition of the book (issue 34): ``make pdf`` writes _build/pdf/dpteach.pdf.

    python -m tools.pdf_book                  execute every chapter (as `make book` does), typeset the PDF
    python -m tools.pdf_book --executed DIR   typeset the notebooks an HTML build already executed
                                              (DIR is its _build/jupyter_execute): no third execution

The PDF holds the chapters, the appendix, the generated pages that make sense on paper and the
bibliography, through Jupyter Book 1's LaTeX builder (XeLaTeX, _config.yml's ``latex:``; the
LaTeX-only settings are in _ext/dpteach_latex.py). Left out: the labs (exercises to run, not to
read; their statements are the chapters' exercises) and the performance page (timings of the web
page's sliders on one machine). The TeX comes from Debian's packages (:data:`APT_PACKAGES`); without
it the build stops at once and names them.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "_build" / "pdf"
PDF_NAME = "dpteach.pdf"
#: Debian's packages for the PDF: their one home is tools/pdf_apt_packages.txt (.ci/run installs them).
APT_PACKAGES = tuple(line.strip() for line in (ROOT / "tools" / "pdf_apt_packages.txt").read_text().splitlines()
                     if line.strip() and not line.startswith("#"))
INSTALL_HINT = "apt-get install -y --no-install-recommends " + " ".join(APT_PACKAGES)
#: What the build needs from those packages: programs, LaTeX files (kpsewhich) and fonts (fc-list).
_PROGRAMS = ("xelatex", "latexmk", "kpsewhich", "fc-list", "pdftotext", "pdfimages")
_TEX_FILES = ("ucharclasses.sty", "unicode-math.sty", "fncychap.sty", "tabulary.sty", "needspace.sty",
              "latinmodern-math.otf")
_FONTS = ("FreeSerif", "DejaVu Sans Mono")
#: Pages of the web book that the PDF leaves out (see the module docstring).
LEFT_OUT_PARTS = ("Labs",)
LEFT_OUT_PAGES = ("book/performance",)


def missing_tex():
    """The programs, LaTeX files and fonts of :data:`APT_PACKAGES` that this machine lacks ([] if none)."""
    missing = [p for p in _PROGRAMS if shutil.which(p) is None]
    if "kpsewhich" not in missing:
        missing += [f for f in _TEX_FILES
                    if not subprocess.run(["kpsewhich", f], capture_output=True, text=True).stdout.strip()]
    if "fc-list" not in missing:
        missing += [f for f in _FONTS
                    if not subprocess.run(["fc-list", f":family={f}"], capture_output=True, text=True).stdout.strip()]
    return missing


def pdf_toc(toc):
    """``_toc.yml`` (a dict) without the parts and pages the PDF leaves out."""
    toc = dict(toc)
    toc["parts"] = [dict(part, chapters=[c for c in part["chapters"] if c.get("file") not in LEFT_OUT_PAGES])
                    for part in toc["parts"] if part.get("caption") not in LEFT_OUT_PARTS]
    return toc


def toc_files(toc):
    """Every page of ``toc`` (root first), as source paths without suffix."""
    files = [toc["root"]]
    for part in toc["parts"]:
        files += [c["file"] for c in part["chapters"]]
    return files


def _stage(executed, stage):
    """A copy of the book in ``stage`` whose notebooks are the executed ones of ``executed``; execution off."""
    if stage.exists():
        shutil.rmtree(stage)
    toc = pdf_toc(yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8")))
    for folder in ("_ext", "_static"):
        shutil.copytree(ROOT / folder, stage / folder, ignore=shutil.ignore_patterns("__pycache__"))
    (stage / "book").mkdir(parents=True)
    shutil.copy2(ROOT / "book" / "references.bib", stage / "book")
    for page in toc_files(toc):
        notebook = ROOT / f"{page}.ipynb"
        if notebook.exists():
            ran = executed / f"{page}.ipynb"
            if not ran.exists():
                raise SystemExit(f"{ran} is missing: build the HTML book first (make book) or drop --executed")
            if ran.stat().st_mtime < notebook.stat().st_mtime:
                raise SystemExit(f"{ran} is older than {notebook}: build the HTML book again or drop --executed")
            shutil.copy2(ran, stage / f"{page}.ipynb")
        else:
            shutil.copy2(ROOT / f"{page}.md", stage / f"{page}.md")
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    config["execute"]["execute_notebooks"] = "off"
    (stage / "_config.yml").write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True), encoding="utf-8")
    (stage / "_toc.yml").write_text(yaml.safe_dump(toc, sort_keys=False), encoding="utf-8")


def build(executed=None, log=None):
    """Typeset the PDF; return (its path, seconds). ``executed``: an HTML build's _build/jupyter_execute."""
    missing = missing_tex()
    if missing:
        raise SystemExit(f"make pdf needs TeX, which is not installed (missing: {', '.join(missing)}).\n"
                         f"Install it from Debian's packages (as root):\n  {INSTALL_HINT}")
    jupyter_book = Path(sys.executable).with_name("jupyter-book")
    env = dict(os.environ, DPTEACH_STATIC_FRAMES="1", TQDM_DISABLE="1")
    env.pop("MPLBACKEND", None)  # a kernel that inherits Agg draws no inline figures (tests/browser/_support.py)
    OUT.mkdir(parents=True, exist_ok=True)
    log = Path(log or OUT / "build.log")
    if executed is not None:
        source = OUT / "src"
        _stage(Path(executed).resolve(), source)
        command = [str(jupyter_book), "build", str(source), "--builder", "pdflatex", "--all"]
    else:
        # Slider figures as frame switchers whose default image LaTeX takes (dpteach.widgets), every
        # notebook executed as `make book` executes it, with the PDF's table of contents.
        source = ROOT
        toc = OUT / "_toc.yml"
        toc.write_text(yaml.safe_dump(pdf_toc(yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))),
                                      sort_keys=False), encoding="utf-8")
        command = [str(jupyter_book), "build", str(ROOT), "--builder", "pdflatex", "--all", "--toc", str(toc)]
    start = time.perf_counter()
    with open(log, "w", encoding="utf-8") as out:
        status = subprocess.run(command, env=env, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT).returncode
    seconds = time.perf_counter() - start
    built = source / "_build" / "latex" / PDF_NAME
    if status != 0 or not built.exists():
        tail = log.read_text(encoding="utf-8", errors="replace")[-3000:]
        raise SystemExit(f"the PDF build failed ({status}); end of {log}:\n{tail}")
    pdf = OUT / PDF_NAME
    shutil.copy2(built, pdf)
    shutil.copy2(built.with_suffix(".log"), OUT / "dpteach.tex.log")
    # What tests/test_pdf.py compares the PDF with: the executed notebooks it was typeset from.
    ran = source if executed is not None else ROOT / "_build" / "jupyter_execute"
    toc = pdf_toc(yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8")))
    notebooks = [str(ran / f"{page}.ipynb") for page in toc_files(toc) if (ROOT / f"{page}.ipynb").exists()]
    (OUT / "manifest.json").write_text(json.dumps({"notebooks": notebooks, "seconds": round(seconds)}, indent=1),
                                       encoding="utf-8")
    return pdf, seconds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--executed", help="an HTML build's _build/jupyter_execute: typeset its notebooks")
    parser.add_argument("--check-tex", action="store_true", help="only say whether the TeX packages are installed")
    args = parser.parse_args(argv)
    if args.check_tex:
        missing = missing_tex()
        print(f"missing: {', '.join(missing)}\ninstall: {INSTALL_HINT}" if missing else "TeX for the PDF: installed")
        return 1 if missing else 0
    pdf, seconds = build(args.executed)
    print(f"The PDF is at {pdf} ({seconds:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
