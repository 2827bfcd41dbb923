# Two commands do all the set-up on a fresh machine with Python 3.11:
#   make book   build the HTML book (creates .venv and installs what it needs)
#   make test   run every test: unit/statistical/privacy tests, every notebook
#               under nbval, a warnings-as-errors build of the book's markup, and
#               (when Chromium is installed) the browser tests of the built book
# Also: make bench (notebook and slider timings; writes benchmarks/results.json and
# book/performance.md), make pages (the listing cells' outputs and the generated pages: theorem index, privacy audit
# report with quick audits, performance page), make audit (the full audits into
# benchmarks/audit_full.json, minutes), make screenshots (every page
# into _build/screenshots/), make pdf (the PDF edition, _build/pdf/dpteach.pdf; needs Debian's TeX packages,
# which it names), make labs (student versions of the labs), make course (an nbgrader course for all labs), make lock (refresh the
# exact versions in requirements.txt / requirements-test.txt from requirements.in / -test.in).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
JOBS   ?= 2
# One BLAS thread per process: the tests already use both cores (pytest -n 2),
# and oversubscribed OpenBLAS threads make small matrix products 1000x slower.
export OPENBLAS_NUM_THREADS ?= 1
# Progress bars belong to live runs, not to the static pages or the test logs (tqdm's own switch:
# tqdm's console bar and dpteach._progress read it; any non-empty value turns bars off).
export TQDM_DISABLE ?= 1
CHROMIUM ?= /usr/bin/chromium

.PHONY: book test unit unit-quick notebooks markup browser pdf test-pdf screenshots labs course bench clean

$(STAMP): requirements.txt requirements-test.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt -r requirements-test.txt
	touch $(STAMP)

# DPTEACH_STATIC_FRAMES=1: every live figure pre-renders its main slider into a
# frame switcher that works in the static page without a kernel. --all: Sphinx would
# otherwise skip (and not re-execute) notebooks whose source did not change, keeping
# outputs made by an older dpteach.
book: $(STAMP)
	DPTEACH_STATIC_FRAMES=1 TQDM_DISABLE=1 $(BIN)/jupyter-book build . --builder html --all
	@echo "The book is at $(CURDIR)/_build/html/index.html"

test: unit notebooks markup browser test-pdf

unit: $(STAMP)
	MPLBACKEND=Agg $(BIN)/python -m pytest tests --ignore=tests/browser --ignore=tests/test_pdf.py -n $(JOBS) -q

# A developer's quick loop: the unit tests without those marked slow (more than a minute of CPU time each;
# tests/conftest.py). `make unit` and `make test` run them all.
unit-quick: $(STAMP)
	MPLBACKEND=Agg $(BIN)/python -m pytest tests --ignore=tests/browser --ignore=tests/test_pdf.py -n $(JOBS) -q -m "not slow"

# Execute every notebook (chapters and lab solutions); outputs are random, so --nbval-lax.
notebooks: $(STAMP)
	$(BIN)/python -m pytest --nbval-lax --nbval-current-env -n $(JOBS) --dist loadfile -q -p no:cacheprovider book

# Build the markup with warnings as errors; nbval above already executed every notebook (and
# compared the numbers quoted in the prose with what the cells computed: book/conftest.py).
markup: $(STAMP)
	sed -e 's/execute_notebooks: force/execute_notebooks: "off"/' _config.yml > _build_markup_config.yml
	$(BIN)/jupyter-book build . --config _build_markup_config.yml --builder html --path-output _build/markup -W -n --keep-going; \
	  status=$$?; rm -f _build_markup_config.yml; exit $$status

# Builds the book once (as `make book` does) and checks every page in headless
# Chromium, plus one chapter in JupyterLab. Skipped, saying so, without Chromium.
browser: $(STAMP)
	@if [ -x "$(CHROMIUM)" ]; then \
	  DPTEACH_CHROMIUM=$(CHROMIUM) MPLBACKEND=Agg $(BIN)/python -m pytest tests/browser -q -p no:cacheprovider; \
	else \
	  echo "SKIPPED browser tests: no Chromium at $(CHROMIUM) (apt-get install -y chromium)"; \
	fi

# The PDF edition (tools/pdf_book.py): every chapter executed as `make book` does, typeset by XeLaTeX.
# EXECUTED=_build/jupyter_execute typesets the notebooks of the last HTML build instead (no execution).
# Without TeX it stops and names the Debian packages to install.
pdf: $(STAMP)
	$(BIN)/python -m tools.pdf_book $(if $(EXECUTED),--executed $(EXECUTED))

# Builds the PDF (from the notebooks the browser stage's HTML build executed, when that build is fresh)
# and checks it: pages, box numbers, references, figures, margins. Skipped, saying so, without TeX.
test-pdf: $(STAMP)
	MPLBACKEND=Agg $(BIN)/python -m pytest tests/test_pdf.py -q -p no:cacheprovider -rs

screenshots: $(STAMP)
	test -f _build/html/index.html || $(MAKE) book
	DPTEACH_CHROMIUM=$(CHROMIUM) $(BIN)/python tests/browser/screenshots.py _build/html _build/screenshots

labs: $(STAMP)
	$(BIN)/python -m dpteach.labs student --src book/labs/solutions --out book/labs

# A ready nbgrader course for all labs (book/instructors.md): config, one assignment per lab, releases, gradebook.
COURSE ?= course
course: $(STAMP)
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/python -m dpteach.labs course --src book/labs/solutions --out $(COURSE)

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py --json benchmarks/results.json; status=$$?; \
	  $(BIN)/python -m tools.performance_page --write && exit $$status

# The generated pages (tools/): the book build regenerates them first, so the privacy
# audit page shows audits of the code being built (quick settings, ~30 s).
.PHONY: pages audit
book: pages
pages: $(STAMP)
	$(BIN)/python -m tools.listings --write
	$(BIN)/python -m tools.theorem_index --write
	$(BIN)/python -m tools.audit_report --write
	$(BIN)/python -m tools.performance_page --write

audit: $(STAMP)
	$(BIN)/python -m tools.audit_report --full

# Refresh the lock: requirements.txt and requirements-test.txt pin every package (transitive ones
# too, ==) that CI tests and Binder installs. Edit the ranges in requirements.in /
# requirements-test.in, then run this: it resolves them in a clean temporary venv (never .venv),
# checks `pip check` and `jupyter labextension list`, and rewrites both files. Needs the package
# index; use the Python of runtime.txt (3.11), e.g. `make lock PYTHON=python3.11`.
.PHONY: lock
lock:
	$(PYTHON) -m tools.lock

clean:
	rm -rf _build .pytest_cache
