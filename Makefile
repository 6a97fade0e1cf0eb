# streamtwin — see README.md
GO      ?= go
VENV    := .venv
PYTHON  := $(VENV)/bin/python
BIN     := bin/streamtwin

.PHONY: demo test unit python-test figures monitoring daedalus autoscaler-tuning live-rescale-profile live-daedalus bench build vet clean reference calibration calibration-live live-jobs live-test live-khaos-profile live-khaos-reference live-traffic-profile live-host-profile live-soak fuzz slurm-test

build:
	$(GO) build -o $(BIN) ./cmd/streamtwin

# The built-in default: simulate scenarios/demo.yaml, write results and a figure.
demo: build
	$(BIN) run scenarios/demo.yaml --out runs/demo --plot

# The Python tools that check outputs (and run the notebooks).
$(PYTHON): requirements.txt
	test -x $(PYTHON) || python3 -m venv $(VENV)
	$(PYTHON) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $(PYTHON)

vet:
	$(GO) vet ./...

# Unit and model tests; the Python policy package's tests (python-test);
# end-to-end CLI runs whose files must open in pandas/pyarrow and DuckDB; the
# notebooks executed headless on them.
test: vet build $(PYTHON) live-jobs python-test
	$(GO) test -count=1 ./...
	rm -rf runs/test
	$(BIN) run scenarios/demo.yaml --out runs/test/demo --plot
	$(BIN) run scenarios/ci-variants.yaml --out runs/test/variants
	$(BIN) sweep scenarios/sweeps/recovery-vs-ci.yaml --out runs/test/sweep
	$(BIN) run scenarios/khaos-ysb.yaml --out runs/test/khaos
	$(BIN) evaluate runs/test/khaos --measured scenarios/measured/khaos-ysb-failures.csv
	$(BIN) run scenarios/monitoring-iot.yaml --out runs/test/monitoring --plot
	$(PYTHON) tests/python/check_outputs.py runs/test/demo runs/test/variants/* runs/test/sweep/runs/r000000 runs/test/khaos/khaos runs/test/khaos/daly runs/test/monitoring
	$(PYTHON) tests/python/run_notebooks.py --run runs/test/demo --sweep runs/test/sweep --variants runs/test/variants
	$(MAKE) --no-print-directory live-test

# The quick tests (about a minute on 2 cores): vet, the Go tests with -short
# and without the live cluster (no Java, Maven, Kafka or Flink, no fixed
# ports; the STREAMTWIN_LIVE* and _BENCH variables are cleared so those tests
# skip), the Python policy package's tests, then a demo run and a variants
# run checked in pandas/pyarrow and DuckDB. `make test` runs everything,
# without -short.
unit: vet build $(PYTHON) python-test
	STREAMTWIN_LIVE= STREAMTWIN_LIVE_SOAK= STREAMTWIN_BENCH= $(GO) test -count=1 -short ./...
	rm -rf runs/unit
	$(BIN) run scenarios/demo.yaml --out runs/unit/demo --plot
	$(BIN) run scenarios/ci-variants.yaml --out runs/unit/variants
	$(PYTHON) tests/python/check_outputs.py runs/unit/demo runs/unit/variants/*

# The Python side of external policies (a few seconds): the streamtwin_policy
# run loop over in-memory streams, the example policy's decisions
# (examples/python), and docs/policy-protocol.schema.json checked on every
# message they exchange and on the examples of docs/policy-protocol.md.
python-test: $(PYTHON)
	$(PYTHON) -m pytest -q python/tests

# The figures the manual shows (docs/figures.md): the demo run and a zoom on
# its first fault, and the policy comparisons of ci-variants and khaos-ysb
# (small multiples, fault zooms, latency distributions, recovery). Same
# bytes on every machine, so a changed PNG in a diff is a changed figure.
FIGURES := runs/figures
figures: build
	rm -rf $(FIGURES)
	$(BIN) run scenarios/demo.yaml --out $(FIGURES)/demo --plot
	$(BIN) plot $(FIGURES)/demo --fault 1
	$(BIN) run scenarios/ci-variants.yaml --out $(FIGURES)/ci-variants
	$(BIN) evaluate $(FIGURES)/ci-variants
	$(BIN) run scenarios/khaos-ysb.yaml --out $(FIGURES)/khaos-ysb
	$(BIN) evaluate $(FIGURES)/khaos-ysb --measured scenarios/measured/khaos-ysb-failures.csv
	mkdir -p docs/figures
	cp $(FIGURES)/demo/figure.png docs/figures/demo.png
	cp $(FIGURES)/demo/figure-fault1.png docs/figures/demo-fault1.png
	for set in ci-variants khaos-ysb; do for f in panels faults latency recovery; do \
		cp $(FIGURES)/$$set/evaluation-$$f.png docs/figures/$$set-$$f.png; done; done

# Issue 23's adaptive monitoring on the compressed IoT week (about 2 s):
# the samplers' trade-off, tradeoff.csv/.parquet and the figure, copied to
# docs/figures/.
monitoring: build
	$(BIN) run scenarios/monitoring-iot.yaml --out runs/monitoring-iot --plot
	mkdir -p docs/figures
	cp runs/monitoring-iot/tradeoff.png docs/figures/monitoring-tradeoff.png

# Issue 21's autoscaling comparison: the Daedalus evaluation's three
# workloads, every policy on one schedule, 5 seeds each (3 × 30 runs of 6 h,
# about 10 s), evaluated into runs/daedalus-*/scaling.md and its figures,
# copied to docs/figures/.
daedalus: build
	mkdir -p docs/figures
	for w in ysb traffic wordcount; do \
		rm -rf runs/daedalus-$$w && \
		$(BIN) sweep scenarios/sweeps/daedalus-$$w.yaml --out runs/daedalus-$$w && \
		$(BIN) evaluate runs/daedalus-$$w && \
		for f in summary timeline latency; do cp runs/daedalus-$$w/scaling-$$f.png docs/figures/daedalus-$$w-$$f.png; done || exit 1; done

# Tuning the Flink operator autoscaler offline on the traffic day (90 runs,
# a few seconds): rescalings, worker-seconds and the largest lag against
# the target utilisation, per scale-down interval and per restart time.
autoscaler-tuning: build
	rm -rf runs/autoscaler-tuning
	$(BIN) sweep scenarios/sweeps/autoscaler-tuning.yaml --out runs/autoscaler-tuning
	$(BIN) plot lines runs/autoscaler-tuning -x policy.target_utilization -y reconfigurations --lines policy.scale_down_interval \
		--title "rescalings (flapping) by scale-down interval" --out runs/autoscaler-tuning/tuning-rescalings
	$(BIN) plot lines runs/autoscaler-tuning -x policy.target_utilization -y worker_seconds --lines policy.restart_time \
		--title "worker-seconds by assumed restart time" --out runs/autoscaler-tuning/tuning-worker-seconds
	$(BIN) plot lines runs/autoscaler-tuning -x policy.target_utilization -y lag_max --lines policy.restart_time \
		--title "largest consumer lag by assumed restart time" --out runs/autoscaler-tuning/tuning-lag
	mkdir -p docs/figures
	for f in rescalings worker-seconds lag; do cp runs/autoscaler-tuning/tuning-$$f.png docs/figures/autoscaler-tuning-$$f.png; done

# The live rescale profile (about 12 min): scenarios/live-rescale-profile.yaml
# on three one-slot TaskManagers with the adaptive scheduler, 12 rescales
# from checkpoints at three loads; their delays and downtimes become
# scenarios/measured/live-rescales.csv, and the twin's rescales of the same
# schedule (scenarios/live-rescale-calibrated.yaml) are printed beside them.
RESCALE_DIR := runs/live-rescale-cluster
live-rescale-profile: build live-jobs
	$(BIN) live up --taskmanagers 3 --slots 1 --scheduler adaptive --dir $(RESCALE_DIR)
	$(BIN) live run scenarios/live-rescale-profile.yaml --dir $(RESCALE_DIR) --out runs/live-rescale-profile; \
		rc=$$?; $(BIN) live down --dir $(RESCALE_DIR); exit $$rc
	$(BIN) results rescales runs/live-rescale-profile > scenarios/measured/live-rescales.csv
	$(BIN) run scenarios/live-rescale-calibrated.yaml --out runs/sim-rescale-profile
	@echo "measured (live):"; cat scenarios/measured/live-rescales.csv
	@echo "twin (scenarios/live-rescale-calibrated.yaml):"; $(BIN) results rescales runs/sim-rescale-profile

# Daedalus live (about 33 min): scenarios/live-daedalus.yaml on three
# quarter-core one-slot TaskManagers with the adaptive scheduler, its twin
# on the same schedule, and the two compared decision by decision; the
# summaries and events land in results/reference/live/.
live-daedalus: build live-jobs
	$(BIN) live up --taskmanagers 3 --slots 1 --scheduler adaptive --tm-cpu 0.25 --dir $(RESCALE_DIR)
	rm -rf runs/live-daedalus; $(BIN) live run scenarios/live-daedalus.yaml --dir $(RESCALE_DIR) --out runs/live-daedalus; \
		rc=$$?; $(BIN) live down --dir $(RESCALE_DIR); exit $$rc
	rm -rf runs/sim-daedalus; $(BIN) run scenarios/live-daedalus.yaml --out runs/sim-daedalus
	mkdir -p results/reference/live/daedalus-live results/reference/live/daedalus-sim
	for k in live sim; do cp runs/$$k-daedalus/summary.json runs/$$k-daedalus/events.parquet runs/$$k-daedalus/timeseries.parquet runs/$$k-daedalus/scenario.yaml \
		results/reference/live/daedalus-$$k/; $(BIN) results rescales runs/$$k-daedalus > results/reference/live/daedalus-$$k/rescales.csv; done
	$(BIN) compare runs/sim-daedalus runs/live-daedalus --faults --decisions | tee results/reference/live/daedalus-compare.txt

# Native Go fuzzing of the decoders, one target after the other, each for
# $(FUZZTIME) (make fuzz FUZZTIME=10m). New crashers land in the package's
# testdata/fuzz/FuzzXxx/; plain `go test ./...` (and make test) already
# replays the seeds and those corpora, without fuzzing. Minimizing each new
# input for Go's default 60 s would take most of a short run.
FUZZTIME ?= 60s
FUZZMINTIME ?= 5s
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINTIME) ./models/scenario/
	$(GO) test -run '^$$' -fuzz '^FuzzLoad$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINTIME) ./models/sweep/
	$(GO) test -run '^$$' -fuzz '^FuzzParseShard$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINTIME) ./models/sweep/
	$(GO) test -run '^$$' -fuzz '^FuzzParseMeasuredCSV$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINTIME) ./results/
	$(GO) test -run '^$$' -fuzz '^FuzzReadCSVTable$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINTIME) ./results/
	$(GO) test -run '^$$' -fuzz '^FuzzParseTrace$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINTIME) ./workloads/
	$(GO) test -run '^$$' -fuzz '^FuzzParseDuration$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINTIME) ./sim/
	$(GO) test -run '^$$' -fuzz '^FuzzParseRate$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINTIME) ./sim/
	$(GO) test -run '^$$' -fuzz '^FuzzParseBytes$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINTIME) ./sim/

# The sweep as a 4-task job array on a real single-node Slurm cluster that
# the script starts here (and always stops): one task is killed with SIGKILL
# mid-way and requeued, and the merged shards must be byte-identical to the
# unsharded sweep. Installs Debian's slurm-wlm and munge when missing; root.
slurm-test: build
	bash deploy/slurm-test.sh

# Simulated-seconds per wall-second for the standard days, JSON events per
# second of the event generators on one core, the cost of one policy step,
# the peak memory of a 7-day run, sweep scaling (best of 3 interleaved
# rounds) and the time of the 60-point calibration, also as a multiple of
# one standard day (run (a), BenchmarkDay30k).
BENCH := runs/bench
bench: build
	mkdir -p $(BENCH)
	$(GO) test -run '^$$' -bench . -benchtime 5x ./models/twin/ | tee $(BENCH)/twin.txt
	$(GO) test -run '^$$' -bench AppendSecond -cpu 1 -benchtime 2s ./workloads/ysb/ ./workloads/iot/
	$(GO) test -run '^$$' -bench PolicyStep -benchtime 20000x ./models/control/ | grep -E 'Benchmark|ok'
	STREAMTWIN_BENCH=1 $(GO) test -count=1 -run TestStepCost -v ./examples/go-policy/loadci/ | grep -E 'policy step|ok|FAIL'
	$(GO) test -run '^$$' -bench MonitoringWeek -benchtime 3x ./models/monitor/ | grep -E 'Benchmark|ok'
	STREAMTWIN_BENCH=1 $(GO) test -count=1 -run TestWeekPeakMemory -v ./app/ | grep -E 'peak|ok|FAIL'
	STREAMTWIN_BENCH=1 $(GO) test -count=1 -run TestSweepScaling -v -timeout 20m ./models/sweep/ | grep -E 'round|best|speedup|ok|FAIL'
	$(BIN) calibrate --scenario scenarios/khaos-ysb-base.yaml --measured scenarios/measured/khaos-ysb-failures.csv \
		--out $(BENCH)/khaos-ysb-all-points.yaml | tee $(BENCH)/calibrate.txt | grep -E 'calibrated in|points:'
	@awk '/^BenchmarkDay30k/ {day = $$3 / 1e9} /calibrated in/ {cal = $$3} \
		END {printf "60-point calibration: %.1f s = %.0f× one standard 24 h run (%.3f s, run (a) above)\n", cal, cal / day, day}' \
		$(BENCH)/twin.txt $(BENCH)/calibrate.txt

# Re-fit scenarios/khaos-ysb-calibrated.yaml (and its fit report) to the
# measured Khaos failures: fitted on CI 30 s and 90 s, the rest held out,
# every CI left out once, 90 % intervals from 10 seeds (≈ 2 min on 2 cores).
calibration: build
	$(BIN) calibrate --scenario scenarios/khaos-ysb-base.yaml --measured scenarios/measured/khaos-ysb-failures.csv \
		--holdout 10s,60s,120s --cv ci --replications 10 --out scenarios/khaos-ysb-calibrated.yaml

# Re-fit scenarios/live-traffic-calibrated.yaml to the live traffic-monitoring
# profile (make live-traffic-profile): fitted on CI 10 s and 40 s, CI 20 s
# held out, every CI left out once, 90 % intervals from 10 seeds; latency is
# the event-time p99.
calibration-live: build
	$(BIN) calibrate --scenario scenarios/live-traffic.yaml --measured scenarios/measured/live-traffic-failures.csv \
		--fit cost_scale,warmup,deploy,latency_base --holdout 20s --cv ci --replications 10 --latency p99 \
		--out scenarios/live-traffic-calibrated.yaml

# Live mode: the Java jobs, then the cluster's own test (its ports are
# free ones) and the end-to-end replay against a real Flink + Kafka started
# from Maven jars on the default ports. `live down` runs even when the test
# fails or its binary is killed by the timeout; the test's exit code stays.
include live/versions.env
LIVE_DIR := runs/test/live-cluster
live-jobs:
	cd live/jobs && mvn -B -q package -Dflink.version=$(FLINK_VERSION) -Dflink.kafka.connector.version=$(FLINK_KAFKA_CONNECTOR_VERSION)

live-test: build live-jobs
	STREAMTWIN_LIVE=1 $(GO) test -count=1 -timeout 10m ./live/cluster/
	STREAMTWIN_LIVE=1 STREAMTWIN_LIVE_DIR=$(CURDIR)/$(LIVE_DIR) STREAMTWIN_LIVE_OUT=$(CURDIR)/runs/test/live \
		STREAMTWIN_LIVE_KHAOS_OUT=$(CURDIR)/runs/test/live-khaos \
		$(GO) test -count=1 -timeout 30m -run 'TestLiveEndToEnd|TestLiveKhaos$$|TestLiveRescale$$|TestLivePolicies$$|TestLivePrometheus$$' -v ./app/; \
		rc=$$?; $(BIN) live down --dir $(LIVE_DIR) >/dev/null 2>&1; exit $$rc
	@echo "sim (calibrated for this machine, 30 seeds) vs this live run of the same schedule — a report, not a test:"
	@$(BIN) sweep scenarios/sweeps/live-traffic-seeds.yaml --out runs/test/live-sim >/dev/null
	@$(BIN) results summarize runs/test/live-sim --by job.checkpoint.interval | grep -E ' figure |recovery_mean_s|lag_max'
	@grep -E '"(recovery_mean_s|lag_max)"' runs/test/live/summary.json

# The live soak (not part of make test, about 13 min): 20 TaskManager kills
# in a row over one run of scenarios/live-soak.yaml with an exactly-once
# sink; every kill recovered, the sink topic audited against the input (no
# view lost or counted twice), no process or port left; logs the spread of
# the recovery times. The run folder stays in runs/live-soak.
SOAK_DIR := runs/live-soak-cluster
live-soak: build live-jobs
	STREAMTWIN_LIVE_SOAK=1 STREAMTWIN_LIVE_DIR=$(CURDIR)/$(SOAK_DIR) STREAMTWIN_LIVE_SOAK_OUT=$(CURDIR)/runs/live-soak \
		$(GO) test -count=1 -timeout 30m -run 'TestLiveSoak$$' -v ./app/; \
		rc=$$?; $(BIN) live down --dir $(SOAK_DIR) >/dev/null 2>&1; exit $$rc

# Khaos validated live: the twin's profile of the live job (models.json
# for scenarios/live-khaos.yaml), and the committed live reference run
# (the files of the last `make live-test`'s TestLiveKhaos).
live-khaos-profile: build
	$(BIN) profile scenarios/live-khaos-profile.yaml --out runs/live-khaos-profile --failures 6 --min-recovery 5s \
		--min-interval 15m --window 60s --min-ci 10s --max-ci 60s
	cp runs/live-khaos-profile/models.json runs/live-khaos-profile/failure_points.csv scenarios/live-khaos-profile/

# make live-traffic-profile: the traffic-monitoring job on its own local
# cluster, 4 loads x 3 rounds of kills of the sink's TaskManager at CI 10,
# 20 and 40 s, interleaved (scenarios/live-traffic-profile/interleaved.yaml,
# about 80 min) → scenarios/measured/live-traffic-failures.csv. Fault k ran
# at CI 10, 20, 40 s for k mod 3 = 0, 1, 2. Run it alone: other load on the
# 2 cores lengthens the measured recoveries. Stops the cluster it started,
# also on failure.
PROFILE := runs/live-traffic-profile
live-traffic-profile: build
	rm -rf $(PROFILE)
	$(BIN) live up --dir $(PROFILE)/cluster --taskmanagers 2
	set -e; trap '$(BIN) live down --dir $(PROFILE)/cluster' EXIT; \
	$(BIN) live run scenarios/live-traffic-profile/interleaved.yaml --dir $(PROFILE)/cluster --out $(PROFILE)/run; \
	$(BIN) results cat --csv $(PROFILE)/run/events.parquet | awk -F, '$$2 == "fault"' > $(PROFILE)/faults.csv; \
	for k in 0 1 2; do \
		ci=$$(echo 10 20 40 | cut -d' ' -f$$((k + 1))); \
		faults=$$(awk -F, -v k=$$k '(NR - 1) % 3 == k {printf "%s%ss", sep, $$1; sep = ","}' $(PROFILE)/faults.csv); \
		$(BIN) calibrate convert --series $(PROFILE)/run/timeseries.parquet --fault-at "$$faults" --ci $${ci}s \
			--label live-ci$$ci --latency p99 --out $(PROFILE)/ci$$ci.csv; \
	done
	(cat $(PROFILE)/ci10.csv; tail -n +2 $(PROFILE)/ci20.csv; tail -n +2 $(PROFILE)/ci40.csv) > scenarios/measured/live-traffic-failures.csv

# make live-host-profile (about 7 min; not part of make test): the host's
# CPU, memory, disk and network at 1 s under a stepped load, for the twin's
# load model: scenarios/live-host-profile/stepped.yaml (traffic monitoring,
# 6 levels of 50 s, 2k-25k vehicles/s) on `live up --prometheus`, the run's
# input rate and throughput joined with node-exporter's metrics from
# Prometheus (TestLiveHostProfile) → scenarios/measured/live-host-metrics.csv.
# Run it alone on the machine. Stops the cluster it started, also on failure.
HOST_PROFILE := runs/live-host-profile
live-host-profile: build live-jobs
	STREAMTWIN_LIVE_HOST_PROFILE=$(CURDIR)/scenarios/measured/live-host-metrics.csv \
		STREAMTWIN_LIVE_DIR=$(CURDIR)/$(HOST_PROFILE)/cluster STREAMTWIN_LIVE_OUT=$(CURDIR)/$(HOST_PROFILE)/run \
		$(GO) test -count=1 -timeout 20m -run 'TestLiveHostProfile$$' -v ./app/; \
		rc=$$?; $(BIN) live down --dir $(HOST_PROFILE)/cluster >/dev/null 2>&1; exit $$rc

live-khaos-reference:
	test -f runs/test/live-khaos/summary.json || { echo "run make live-test first"; exit 2; }
	mkdir -p results/reference/live/live-khaos
	cp runs/test/live-khaos/summary.json runs/test/live-khaos/events.parquet runs/test/live-khaos/timeseries.parquet \
		runs/test/live-khaos/scenario.yaml results/reference/live/live-khaos/

# Rewrite results/reference/ from fresh runs of scenarios/*.yaml. Only after
# a deliberate model change: review `git diff results/reference` first.
reference:
	$(GO) test -count=1 ./app -run TestReferences -update-references

clean:
	rm -rf bin runs
