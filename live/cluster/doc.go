// Package cluster starts and stops the live backend on this machine: one
// Kafka broker (KRaft, combined broker+controller, dynamic quorum formatted
// with --standalone), one Flink standalone session JobManager and N
// TaskManagers, each a JVM in its own process group, all on 127.0.0.1,
// started from Maven jars without the Flink or Kafka distributions.
//
// Versions come from live/versions.env (package live). Resolve writes the
// embedded pom of each side (maven/flink/pom.xml, maven/kafka/pom.xml) and
// runs `mvn dependency:copy-dependencies` into
// <cache>/<FLINK_VERSION>/flink-lib and <cache>/<KAFKA_VERSION>/kafka-lib,
// only when a folder lacks its stamp (.streamtwin-complete.json: the hash of
// pom + versions and every jar's size). The cache is
// $STREAMTWIN_LIVE_CACHE or ~/.cache/streamtwin/live; mvn is needed only
// while it is incomplete, java 17+ always.
//
// Up checks java and the four fixed ports (JobManager RPC, REST, Kafka,
// Kafka controller), resolves the jars, writes Config.Dir/conf
// (config.yaml, server.properties, Log4j 2 files), formats Kafka's storage
// (kafka.tools.StorageTool), starts the JobManager
// (StandaloneSessionClusterEntrypoint), the broker (kafka.Kafka) and the
// TaskManagers (TaskManagerRunner with the memory flags BashJavaUtils
// GET_TM_RESOURCE_PARAMS derives from taskmanager.memory.process.size, and
// -Dtaskmanager.resource-id=tm-<i>), and waits until GET /overview shows
// all TaskManagers and slots and Kafka answers a metadata request (kadm).
// Each process logs to Dir/log/<name>.log; Dir/pids.json records pid, argv
// and log, written after every start so that `streamtwin live down` cleans
// up even after a crashed Up. A failed Up stops what it started.
//
// Attach reopens a cluster from pids.json; a pid counts as ours only while
// its command line carries -Dstreamtwin.live=<Dir>/<name> (pids are reused).
// Down sends SIGTERM to every process group, SIGKILL after a grace period,
// removes pids.json and checks the ports are free. KillTaskManager(i) is a
// crash (SIGKILL); RestartTaskManager(i) starts the same command line again
// (same resource id, log appended).
//
// Start time on 2 cores is CPU-bound (four JVMs at once). Two measures cut
// it: the JobManager and the short tools run C1-only
// (-XX:TieredStopAtLevel=1; Kafka and the TaskManagers keep C2, their speed
// is what live runs measure), and each role gets a dynamic AppCDS archive
// (cds.go), written once at the first Down, used from then on.
//
// With Config.Prometheus (live up --prometheus, prometheus.go) Up also
// resolves Flink's Prometheus reporter (maven/flink-prometheus/pom.xml) into
// Dir/plugins/metrics-prometheus, gives the JobManager and each TaskManager
// its own reporter port, and starts node-exporter and a Prometheus server
// (Debian's binaries) scraping them every second; their pids count as ours
// while their command line names a file of Dir (Process.Marker). Down stops
// them with the rest.
//
// Tests: `go test ./live/cluster` runs the unit tests (no JVM);
// STREAMTWIN_LIVE=1 adds the end-to-end tests that start real clusters on
// random free ports (STREAMTWIN_LIVE_KEEP=1 keeps their state folders).
package cluster
