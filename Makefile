# kibo — every entry point. `make run` and `make test` work on a fresh machine.
SHELL := /bin/bash
export CARGO_TARGET_DIR ?= $(HOME)/.cache/kibo-target
export CARGO_BUILD_JOBS ?= 2
CARGO  ?= cargo
KIBO   := $(CARGO_TARGET_DIR)/release/kibo
PIPELINE ?= pipelines/default.toml
OUT    ?= out/default
INPUT  ?=
LICENCE ?=
THREADS ?=
VENV   := .venv
## The Python the venv is made from: the distribution's own (/usr/bin/python3: Debian 12's
## 3.11.2, Ubuntu 24.04's 3.12), the one a new user has, else python3 on PATH. Python 3.11
## or newer (the pinned wheels of tests/python/requirements.txt need it); `make venv` says so
## and stops on an older one. PYTHON=python3.12 (say) to choose another.
PYTHON ?= $(firstword $(wildcard /usr/bin/python3) python3)
PYTHON_MIN := 3.11
PYTHON_VERSION := $(shell $(PYTHON) -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null)
# The venv itself lives outside the clone, like the cargo target dir (torch brings GBs
# of wheels), one for each Python version: .venv is a symlink to it, made when missing and
# pointed anew when PYTHON changes.
VENV_HOME ?= $(HOME)/.cache/kibo-venv-$(PYTHON_VERSION)
PY     := $(VENV)/bin/python
SHARED ?= ../shared/data
KGS    ?= $(SHARED)/dev/kgs-2001-archive

# INPUT's licence (SPDX id): without it the inputs are recorded as "unknown" (a warning says so).
INPUT_FLAGS := $(foreach i,$(INPUT),--input $(i)) $(if $(LICENCE),--licence '$(LICENCE)',)
THREAD_FLAGS := $(if $(THREADS),--threads $(THREADS),)

.PHONY: python-check match label eval-baselines katago ladder-compare test-train spark spark-check bench-spark bench-scale bench-compare lint debs fuzz all build run filter split sample stats test test-fetch test-rust-all test-rust test-polars test-python bench venv clean

all: build

## One set of release units for every release build here (`make run`, the tests, the Python
## package): cargo resolves features per invocation, so asking for the same units each time
## builds the dependencies once, and `make run` after `make test` (or before) rebuilds nothing.
RELEASE_UNITS := --workspace --lib --bin kibo --test integration
build:
	$(CARGO) build --release $(RELEASE_UNITS)

## The whole pipeline (every stage built so far) on the embedded sample, or INPUT=... [LICENCE=SPDX]
run: build
	$(KIBO) run $(INPUT_FLAGS) --out $(OUT) --pipeline $(PIPELINE) $(THREAD_FLAGS)
	$(KIBO) sample --out $(OUT) --pipeline $(PIPELINE)

filter: build
	$(KIBO) filter $(INPUT_FLAGS) --out $(OUT) --pipeline $(PIPELINE) $(THREAD_FLAGS)

split: build
	$(KIBO) split --out $(OUT) --pipeline $(PIPELINE) $(THREAD_FLAGS)

## 20 random samples (seed from the pipeline) as pictures, text, SGF and one review page.
sample: build
	$(KIBO) sample --out $(OUT) --pipeline $(PIPELINE) $(if $(N),--n $(N),)

## Models and engines played against each other (docs/match.md): by default GNU Go at
## level 1 against the random player, GAMES games, into MATCH (a rerun finishes it).
## make match [MATCH=out/match] [GAMES=10] [PLAYERS='--player a=SPEC --player b=SPEC'] [MATCH_FLAGS=...]
MATCH   ?= out/match
GAMES   ?= 10
GNUGO   := $(firstword $(wildcard /usr/games/gnugo /usr/bin/gnugo) gnugo)
PLAYERS ?= --player 'gnugo-1=gtp:$(GNUGO) --mode gtp --level 1' --player random=random
match: build
	@command -v $(GNUGO) >/dev/null || $(MAKE) debs
	$(KIBO) match --to $(MATCH) $(PLAYERS) --games $(GAMES) $(MATCH_FLAGS)

## KataGo's reading of the positions `kibo export vlm --limit LIMIT` draws (docs/labels.md):
## make label OUT=<kibo run output> [LIMIT=100000] [VISITS=1] [LABEL_FLAGS="--policy --ownership"]
LIMIT  ?= 100000
VISITS ?= 1
label: build katago
	$(KIBO) label --out $(OUT) --pipeline $(PIPELINE) --limit $(LIMIT) --katago-visits $(VISITS) $(THREAD_FLAGS) $(LABEL_FLAGS)

## Summary tables with Polars (builds kibo with the `query` feature: Polars takes
## ~17 minutes to compile in release on 2 cores, once).
KIBO_QUERY := $(CARGO_TARGET_DIR)/query/release/kibo
stats:
	CARGO_TARGET_DIR=$(CARGO_TARGET_DIR)/query $(CARGO) build --release --features query --bin kibo
	$(KIBO_QUERY) stats --out $(OUT) --pipeline $(PIPELINE)

## Debian packages the tests need (headless Chromium for the review page, Java 17 for
## Spark, GNU Go for tests/python/test_gnugo_scoring.py, KataGo's build tools). Installed
## once per machine (root; `apt-get update` first); a stamp under the venv marks it done.
KATAGO_DEBS := cmake libeigen3-dev libzip-dev zlib1g-dev g++
DEBS := chromium openjdk-17-jre-headless gnugo $(KATAGO_DEBS)
$(VENV)/.debs: Makefile | $(VENV)
	@missing=$$(for p in $(DEBS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages: $$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi
	touch $@

debs: $(VENV)/.debs

## The same dataset built on Apache Spark (PySpark, local mode by default; on a cluster
## see docs/distributed.md): make spark INPUT=PATH OUT=DIR [LICENCE=SPDX] [SPARK_MASTER=local[2]] [PIPELINE=FILE].
SPARK_MASTER ?= local[2]
PYSPARK := PYSPARK_PYTHON=$(abspath $(PY)) PYSPARK_DRIVER_PYTHON=$(abspath $(PY))
spark: build venv debs
	$(PYSPARK) $(PY) dist/spark/kibo_spark.py --kibo $(KIBO) $(INPUT_FLAGS) --out $(OUT) --pipeline $(PIPELINE) --master '$(SPARK_MASTER)' $(SPARK_FLAGS)

## make spark, then `kibo run` of the same pipeline into OUT-one, and the comparison of
## the two datasets (every table, the report's counts, the card), with wall times.
spark-check: build venv debs
	@rm -rf $(OUT) $(OUT)-one
	@TIMEFORMAT="make spark: %R s wall"; time $(MAKE) --no-print-directory spark
	@TIMEFORMAT="kibo run:   %R s wall"; time $(KIBO) run $(INPUT_FLAGS) --out $(OUT)-one --pipeline $(PIPELINE) -q
	$(PY) dist/spark/compare.py $(OUT)-one $(OUT)

## Spark local mode beside `kibo run` on the same corpus (the dev corpus, and the 10^7
## bench-scale corpus when `make bench-scale` has built it): wall, samples/s, CPU-s per
## million samples, shuffle bytes. SPARK_BENCH to choose corpora (pipeline files or folders).
SPARK_BENCH ?= pipelines/dev.toml $(wildcard /tmp/kibo-scale/1e7/files)
bench-spark: build venv debs
	$(PY) bench/spark.py $(KIBO) --master '$(SPARK_MASTER)' $(SPARK_BENCH)

## Python venv for the query / oracle tests (polars, pyarrow, sgfmill, pytest, torch, ...).
## .venv is a symlink to $(VENV_HOME), made when .venv is missing (an existing
## .venv, link or folder, is kept); a venv that exists is updated in place. --no-compile:
## Python compiles a module when it is first imported, not pip all ~10,000 (~35 CPU-s).
$(VENV):
	mkdir -p $(VENV_HOME) && ln -sfn $(VENV_HOME) $(VENV)
# A .venv link to another Python's venv is pointed at this one's before make looks at it.
ifneq ($(shell test -L $(VENV) && test "$$(readlink $(VENV))" != "$(VENV_HOME)" && echo stale),)
$(shell mkdir -p $(VENV_HOME) && ln -sfn $(VENV_HOME) $(VENV))
endif

python-check:
	@test -n "$(PYTHON_VERSION)" || { echo "make: no Python at PYTHON=$(PYTHON): kibo's tests need Python >= $(PYTHON_MIN) with venv (Debian: apt-get install python3 python3-venv)"; exit 2; }
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info[:2] < tuple(map(int, "$(PYTHON_MIN)".split("."))))' || \
	  { echo "make: PYTHON=$(PYTHON) is Python $(PYTHON_VERSION); kibo's tests need Python >= $(PYTHON_MIN) (tests/python/requirements.txt's wheels). On Ubuntu 22.04: apt-get install python3.11 python3.11-venv, then make ... PYTHON=python3.11"; exit 2; }

$(VENV)/.ok: tests/python/requirements.txt | python-check $(VENV)
	test -x $(PY) || $(PYTHON) -m venv $(VENV_HOME)
	$(PY) -m pip install --quiet --disable-pip-version-check --no-compile -r tests/python/requirements.txt
	touch $@

## The kibo Python package (kibo-py/: pyo3), built by `make build` with the rest (the
## same units, so no second build of the dependencies) and installed into the venv as an
## editable package: the extension beside kibo-py/python/kibo/*.py, a kibo.pth naming that
## folder. Rebuilt when its sources or the library's change. (kibo-py/pyproject.toml
## names maturin as its build backend, for wheels.)
KIBO_PY_SRC := kibo-py/Cargo.toml $(wildcard kibo-py/src/*.rs kibo-py/python/kibo/*.py) $(shell find src -name '*.rs')
$(VENV)/.kibo-py: $(VENV)/.ok $(KIBO_PY_SRC)
	$(MAKE) --no-print-directory build
	cp $(CARGO_TARGET_DIR)/release/lib_kibo.so kibo-py/python/kibo/_kibo.abi3.so.tmp
	mv kibo-py/python/kibo/_kibo.abi3.so.tmp kibo-py/python/kibo/_kibo.abi3.so
	echo $(abspath kibo-py/python) > $$($(PY) -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/kibo.pth
	touch $@

venv: $(VENV)/.ok $(VENV)/.kibo-py

## Everything, in two phases: the downloads (the venv's wheels, the Debian packages,
## KataGo's net) and KataGo's build beside the release build of kibo; then the Python tests
## (two workers) beside formatting, clippy, the Rust tests and the Polars test, which fill
## the cores the workers leave idle (a worker waiting on a child, the last file alone).
test:
	$(MAKE) --no-print-directory -j2 --output-sync=target test-fetch build
	$(MAKE) --no-print-directory -j2 --output-sync=target test-python test-rust-all

test-fetch:
	$(MAKE) --no-print-directory python-check
	$(MAKE) --no-print-directory $(VENV)/.ok
	$(MAKE) --no-print-directory debs
	$(MAKE) --no-print-directory $(KATAGO_MODEL)
	$(MAKE) --no-print-directory $(KATAGO_STAMP)

test-rust-all:
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory test-rust
	$(MAKE) --no-print-directory test-polars

## Formatting and clippy, warnings as errors (every target: lib, bin, tests, benches).
lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --release --all-targets -- -D warnings

test-rust:
	$(CARGO) test --release $(RELEASE_UNITS)

## The Rust Polars test, in a debug build without debug info or incremental state
## (Polars: ~5 minutes in debug, ~17 in release).
test-polars:
	CARGO_PROFILE_DEV_DEBUG=0 CARGO_INCREMENTAL=0 $(CARGO) test --features query --test polars_stats

# The binary is `make build`'s (the same units as the Rust tests: nothing to compile after them).
test-python: build venv debs katago
	KIBO=$(KIBO) SHARED=$(SHARED) KATAGO_HOME=$(KATAGO_HOME) $(PY) -m pytest -q -n 2 --dist loadfile tests/python

## KataGo, the judge of the hard games (docs/scoring.md, "KataGo as the judge"; `make test`
## runs tests/python/test_score_katago.py with it): built from
## ../shared/oracles/katago-cpp (Eigen backend, CPU, -O3 for this processor: ~200 s on 2
## cores, once per processor kind: a stamp names the CPU flags it was built for) into
## $(KATAGO_HOME), with the b10 net and the analysis config of KaTrain's PyPI wheel.
## `make katago` prints the three paths; checks/katago_check.py uses them.
KATAGO_HOME ?= $(HOME)/.cache/kibo-katago
KATAGO_SRC  ?= $(abspath $(SHARED)/../oracles/katago-cpp/katago-6a1fc5d-cpp.tar.gz)
KATAGO_BIN  := $(KATAGO_HOME)/katago-6a1fc5d/cpp/katago
KATAGO_MODEL := $(KATAGO_HOME)/katrain/katrain/models/b10c384h6nbttflrs.bin.gz
KATAGO_CONFIG := $(KATAGO_HOME)/katrain/katrain/KataGo/analysis_config.cfg
KATAGO_CPU  := $(shell grep -m1 '^flags' /proc/cpuinfo | md5sum | cut -c1-12)
KATAGO_STAMP := $(KATAGO_HOME)/katago-6a1fc5d/built-for-cpu-$(KATAGO_CPU)
$(KATAGO_STAMP):
	@test -f $(KATAGO_SRC) || { echo "katago: $(KATAGO_SRC) is missing"; exit 2; }
	@missing=$$(for p in $(KATAGO_DEBS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages: $$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi
	rm -rf $(KATAGO_HOME)/katago-6a1fc5d && mkdir -p $(KATAGO_HOME) && tar -xzf $(KATAGO_SRC) -C $(KATAGO_HOME)
	cd $(KATAGO_HOME)/katago-6a1fc5d/cpp && cmake . -DUSE_BACKEND=EIGEN -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS=-march=native \
	  $$(grep -q avx2 /proc/cpuinfo && echo -DUSE_AVX2=1) -DNO_GIT_REVISION=1 >/dev/null && \
	  { $(MAKE) -j2 > build.log 2>&1 || { tail -40 build.log; exit 1; }; }
	touch $@
$(KATAGO_MODEL): | $(VENV)/.ok
	mkdir -p $(KATAGO_HOME)/katrain
	$(PY) -m pip download --quiet --disable-pip-version-check --no-deps -d $(KATAGO_HOME)/katrain katrain==1.20.0
	cd $(KATAGO_HOME)/katrain && $(abspath $(PY)) -c "import zipfile; z = zipfile.ZipFile('katrain-1.20.0-py3-none-any.whl'); \
	  [z.extract(n) for n in z.namelist() if n.startswith('katrain/models/') or n == 'katrain/KataGo/analysis_config.cfg']"
	touch $@
katago: $(KATAGO_STAMP) $(KATAGO_MODEL)
	@echo "KATAGO_BIN=$(KATAGO_BIN)"; echo "KATAGO_MODEL=$(KATAGO_MODEL)"; echo "KATAGO_CONFIG=$(KATAGO_CONFIG)"

## Every row of a katago export against KataGo's C++ fillRowV7 (checks/ladder_fillrow.cpp,
## linked against `make katago`'s objects) and N rows against features.py (docs/planes.md,
## "Every row against KataGo"): make ladder-compare OUT=<kibo run output> NPZ=<export> [N=20000]
N ?= 20000
ladder-compare: build katago venv
	@test -n "$(NPZ)" || { echo "ladder-compare: OUT=<kibo run output> NPZ=<kibo export katago folder> are required"; exit 2; }
	$(PY) checks/ladder_compare.py $(OUT) $(NPZ) --cpp --features-py $(N)

## Baselines of `kibo eval` (docs/eval.md; figures in docs/results/eval.md): a random legal
## move, the example policy net (MINUTES of training; needs `make venv`'s kibo package), KataGo's
## first move at one visit (when OUT/labels exists), the move most played from the position in
## the train split of ND (a dedup-off run of the same corpus, when given), constant answers.
## make eval-baselines OUT=<kibo run output> SET=<kibo export vlm --splits test> [ND=DIR] [MINUTES=3] [SKIP=policy-net]
MINUTES ?= 3
eval-baselines: build
	$(PY) checks/eval_baselines.py --kibo $(KIBO) --out $(OUT) --set $(SET) $(if $(ND),--nodedup $(ND)) \
	  --work $(SET)-baselines --minutes $(MINUTES) $(if $(SKIP),--skip $(SKIP))

## Extra packages of the trainer tests (TRL, transformers, torchvision, ...), installed when
## the list changes.
$(VENV)/.train: tests/python/requirements-train.txt $(VENV)/.ok
	$(PY) -m pip install --quiet --disable-pip-version-check -r tests/python/requirements-train.txt
	touch $@

## The trainers on kibo's exports (`make test` skips them): KataGo's read_npz_training_data
## and train.py (b1c6nbt, CPU) on `kibo export katago` of the dev corpus
## (tests/python/test_train_katago.py), and TRL's SFTTrainer on a tiny Qwen2-VL built from
## a config, on `kibo export vlm` of the embedded sample (tests/python/test_train_vlm.py).
test-train: build venv debs $(VENV)/.train
	KIBO=$(KIBO) SHARED=$(SHARED) $(PY) -m pytest -q -s --run-train tests/python/test_train_katago.py tests/python/test_train_vlm.py

## Benchmarks: print figures, assert nothing.
bench: build venv
	RAYON_NUM_THREADS=1 KGS=$(KGS) $(CARGO) bench --bench micro
	KIBO=$(KIBO) KGS=$(KGS) bash bench/e2e.sh
	@if [ -d $(SHARED)/dev ]; then \
	  $(KIBO) run --pipeline pipelines/dev.toml --out out/bench-dev -q && $(PY) bench/pruning.py out/bench-dev; \
	else echo "bench: $(SHARED)/dev is absent; pruning not measured"; fi

## The working tree against a reference commit: make bench-compare REF=<commit> [ROUNDS=3]
## [THREADS=1] [CORPORA=dev,1e7]. Builds REF in its own worktree and target folder
## (~/.cache/kibo-ref/<short>, ~/.cache/kibo-target-ref-<short>), runs kibo filter and
## kibo split of both alternately (REF first), best of ROUNDS, on the dev corpus and the
## 10^7 bench-scale corpus (built when absent), and prints wall, CPU and new/REF ratios
## (also out/bench-compare/<short>.md and .json).
ROUNDS ?= 3
CORPORA ?= dev,1e7
bench-compare: build
	@test -n "$(REF)" || { echo "bench-compare: REF=<commit> is required"; exit 2; }
	SHARED=$(SHARED) $(PYTHON) bench/compare.py --ref '$(REF)' --new $(KIBO) --units '$(RELEASE_UNITS)' --rounds $(ROUNDS) --threads $(or $(THREADS),1) --corpora '$(CORPORA)'

## Corpus scale: builds corpora of about 10^6, 10^7 and 10^8 samples from the dev games
## (under /tmp/kibo-scale; SCALE_SIZES, SCALE_LAYOUTS, SCALE_MEMORY_MB, SCALE_ROOT) and
## prints one table (wall, CPU per million samples, peak RSS against the budget, spills).
bench-scale: build
	KIBO=$(KIBO) SHARED=$(SHARED) $(CARGO) bench --bench scale

## Time-boxed fuzzing of the SGF reader, the archive reader and replay (cargo-fuzz,
## libFuzzer; RUSTC_BOOTSTRAP lets the stable toolchain accept the -Z flags).
## FUZZ_SECONDS per target (default 60); the SGF corpus is seeded from ../shared/data/edge.
## FUZZ_TARGETS picks the targets (default: all five; `record_reader`, the GIB/NGF/UGF
## readers and the SGF writer, is seeded from ../shared/data/formats; `dump_reader`, the
## one-line dumps and their index).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= sgf_reader archive_reader replay record_reader dump_reader
fuzz:
	command -v cargo-fuzz >/dev/null || $(CARGO) install cargo-fuzz
	mkdir -p out $(foreach t,$(FUZZ_TARGETS),fuzz/corpus/$(t)) $(foreach t,sgf_reader record_reader archive_reader dump_reader,fuzz/corpus/$(t))
	if [ -d $(SHARED)/edge ]; then find $(SHARED)/edge -name '*.sgf' -size -64k -exec cp {} fuzz/corpus/sgf_reader/ \; ; fi
	cp data/kombilo/*.sgf fuzz/corpus/sgf_reader/
	# archive_reader seeds (first byte: the name, fuzz_targets/archive_reader.rs): a zip, a
	# tar.gz, a 7z, its two volumes and a cut 7z of embedded games; dump_reader: a dump line
	# and its index.
	command -v 7z >/dev/null || { apt-get install -y -q p7zip-full >/dev/null || { apt-get update -q && apt-get install -y -q p7zip-full; }; }
	rm -rf out/fuzz-seed && mkdir -p out/fuzz-seed && cp data/kombilo/*.sgf out/fuzz-seed/ && ls out/fuzz-seed/*.sgf | head -3 > out/fuzz-seed.list
	cd out/fuzz-seed && 7z a -bso0 -bsp0 s.7z $$(head -3 ../fuzz-seed.list | xargs -n1 basename) && 7z a -bso0 -bsp0 -v1k v.7z $$(head -3 ../fuzz-seed.list | xargs -n1 basename) \
	  && python3 -c "import zipfile,tarfile,glob; fs=sorted(glob.glob('*.sgf'))[:3]; z=zipfile.ZipFile('s.zip','w',zipfile.ZIP_DEFLATED); [z.write(f) for f in fs]; z.close(); t=tarfile.open('s.tar.gz','w:gz'); [t.add(f) for f in fs]; t.close()"
	{ printf '\000'; cat out/fuzz-seed/s.zip; } > fuzz/corpus/archive_reader/seed-zip
	{ printf '\002'; cat out/fuzz-seed/s.tar.gz; } > fuzz/corpus/archive_reader/seed-targz
	{ printf '\006'; cat out/fuzz-seed/s.7z; } > fuzz/corpus/archive_reader/seed-7z
	{ printf '\006'; head -c 1000 out/fuzz-seed/s.7z; } > fuzz/corpus/archive_reader/seed-7z-cut
	{ printf '\007'; cat out/fuzz-seed/v.7z.001; } > fuzz/corpus/archive_reader/seed-7z-volume
	printf '7\t;B[pd];W[dp];B[pp];W[dd]\n8\t;B[qd];W[dc]\n\3777\t2016.12.01 10:00\tw7\tb7\tW+R\t4\n' > fuzz/corpus/dump_reader/seed-dump
	if [ -d $(SHARED)/formats ]; then i=0; for f in $$(find $(SHARED)/formats -type f \( -iname '*.gib*' -o -iname '*.ngf' -o -iname '*.ug[fi]' \)); do \
	  i=$$((i+1)); case "$$f" in *.gib*) p='\000';; *.[nN][gG][fF]) p='\001';; *) p='\002';; esac; \
	  { printf "$$p"; cat "$$f"; } > fuzz/corpus/record_reader/seed-$$i; done; fi
	cd fuzz && for t in $(FUZZ_TARGETS); do \
	  RUSTC_BOOTSTRAP=1 cargo fuzz run -s none -O $$t corpus/$$t -- -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 > ../out/fuzz-$$t.log 2>&1 \
	    || { tail -40 ../out/fuzz-$$t.log; echo "fuzz: $$t FAILED (log: out/fuzz-$$t.log; crash inputs in fuzz/artifacts/$$t)"; exit 1; }; \
	  echo "fuzz: $$t: $$(grep -o 'Done [0-9]* runs in [0-9]* second(s)' ../out/fuzz-$$t.log), no crash"; \
	done

clean:
	rm -rf out $(VENV)
