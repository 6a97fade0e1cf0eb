package streamtwin.jobs;

import java.time.Duration;
import java.util.Set;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.environment.CheckpointConfig;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.ParameterTool;

/**
 * Command-line arguments common to both jobs, and the environment they configure.
 *
 * <pre>
 * --bootstrap 127.0.0.1:9092   Kafka bootstrap servers
 * --input-topic T              (required)
 * --output-topic T             (required)
 * --group G                    consumer group (default streamtwin-&lt;job&gt;); offsets committed there
 * --parallelism N              default: the cluster's parallelism.default
 * --checkpoint-interval MS     default 30000; 0 disables checkpointing
 * --checkpoint-timeout MS      default 3600000 (Khaos)
 * --max-concurrent-checkpoints N  default per job (Khaos: YSB 100, IoT 10)
 * --tolerable-failed-checkpoints N  checkpoint failures in a row the job survives, default 3
 * --state-backend hashmap|rocksdb  default: the cluster's state.backend.type
 * --checkpoint-dir URI         default: the cluster's execution.checkpointing.dir
 * --out-of-orderness MS        watermark bound, default 1000 (Khaos jobs: 1 s)
 * --idle-timeout MS            a source split without records for this long stops holding the
 *                              watermark back, default 5000; 0 disables
 * --buffer-timeout MS          network buffer flush timeout, default Flink's 100; Khaos used -1
 * --delivery-guarantee at-least-once|exactly-once  of the Kafka sink, default at-least-once
 *                              (see {@link KafkaIO#sink})
 * --job-name NAME              the name Flink lists the job under, default the job class's; the
 *                              live driver names its jobs after their input topic, so that its
 *                              cleanup finds every job a run submitted
 * </pre>
 *
 * Unset cluster-level options are deliberately not defaulted here, so that live/'s cluster config
 * (and REST flinkConfiguration) stays in charge of them; options set here override the cluster's.
 * Unknown arguments are an error, so a typo does not silently run a different experiment.
 */
final class JobOptions {
    final String bootstrap;
    final String inputTopic;
    final String outputTopic;
    final String group;
    final Integer parallelism;
    final long checkpointIntervalMs;
    final long checkpointTimeoutMs;
    final int maxConcurrentCheckpoints;
    final int tolerableFailedCheckpoints;
    final String stateBackend;
    final String checkpointDir;
    final Duration outOfOrderness;
    final Duration idleTimeout;
    final Long bufferTimeoutMs;
    final boolean exactlyOnce;
    /** YSB only: path of the ad → campaign mapping; null if not given. */
    final String mapping;
    /** --job-name; null if not given. */
    private final String jobName;

    private JobOptions(ParameterTool p, String job, int defaultMaxConcurrent, boolean takesMapping) {
        bootstrap = p.get("bootstrap", "127.0.0.1:9092");
        inputTopic = p.getRequired("input-topic");
        outputTopic = p.getRequired("output-topic");
        group = p.get("group", "streamtwin-" + job);
        parallelism = p.has("parallelism") ? p.getInt("parallelism") : null;
        checkpointIntervalMs = p.getLong("checkpoint-interval", 30_000);
        checkpointTimeoutMs = p.getLong("checkpoint-timeout", 3_600_000);
        maxConcurrentCheckpoints = p.getInt("max-concurrent-checkpoints", defaultMaxConcurrent);
        tolerableFailedCheckpoints = p.getInt("tolerable-failed-checkpoints", 3);
        stateBackend = p.get("state-backend", null);
        checkpointDir = p.get("checkpoint-dir", null);
        outOfOrderness = Duration.ofMillis(p.getLong("out-of-orderness", 1000));
        idleTimeout = Duration.ofMillis(p.getLong("idle-timeout", 5000));
        bufferTimeoutMs = p.has("buffer-timeout") ? p.getLong("buffer-timeout") : null;
        mapping = takesMapping ? p.get("mapping", null) : null;
        jobName = p.get("job-name", null);
        String delivery = p.get("delivery-guarantee", "at-least-once");
        if (!Set.of("at-least-once", "exactly-once").contains(delivery)) {
            throw new IllegalArgumentException("--delivery-guarantee must be at-least-once or exactly-once, not " + delivery);
        }
        exactlyOnce = delivery.equals("exactly-once");

        if (stateBackend != null && !Set.of("hashmap", "rocksdb").contains(stateBackend)) {
            throw new IllegalArgumentException("--state-backend must be hashmap or rocksdb, not " + stateBackend);
        }
        if (parallelism != null && parallelism < 1) {
            throw new IllegalArgumentException("--parallelism must be ≥ 1");
        }
        Set<String> unknown = p.getUnrequestedParameters();
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("unknown arguments: " + unknown);
        }
    }

    static JobOptions parse(String[] args, String job, int defaultMaxConcurrent, boolean takesMapping) {
        return new JobOptions(ParameterTool.fromArgs(args), job, defaultMaxConcurrent, takesMapping);
    }

    /** The name to execute the job under: --job-name, else {@code fallback}. */
    String jobName(String fallback) {
        return jobName != null ? jobName : fallback;
    }

    /** A stream environment with the Khaos job settings (khaos.md §10) and these options applied. */
    StreamExecutionEnvironment environment() {
        Configuration conf = new Configuration();
        // Flink 2 removed StreamExecutionEnvironment#setStateBackend and the backend classes'
        // public constructors for jobs: the backend is chosen by configuration only.
        if (stateBackend != null) {
            conf.set(StateBackendOptions.STATE_BACKEND, stateBackend);
            // Khaos: RocksDB with incremental checkpoints. Ignored by the hashmap backend.
            conf.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, stateBackend.equals("rocksdb"));
        }
        if (checkpointDir != null) {
            conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpointDir);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        applyTo(env);
        return env;
    }

    /** The settings that do not need a Configuration; tests apply them to a MiniCluster env. */
    void applyTo(StreamExecutionEnvironment env) {
        if (parallelism != null) {
            env.setParallelism(parallelism);
        }
        // Fixed max parallelism (= key-group count): a savepoint restores at any parallelism ≤ 128
        // only if this does not change between submissions; Flink's derived default could.
        env.setMaxParallelism(128);
        // As in the Khaos jobs: every operator is its own task, so each has its own REST vertex,
        // busy/back-pressure metrics and network hop — the structure the twin models.
        env.disableOperatorChaining();
        if (bufferTimeoutMs != null) {
            env.setBufferTimeout(bufferTimeoutMs);
        }
        if (checkpointIntervalMs > 0) {
            env.enableCheckpointing(checkpointIntervalMs, CheckpointingMode.EXACTLY_ONCE);
            CheckpointConfig cc = env.getCheckpointConfig();
            cc.setCheckpointTimeout(checkpointTimeoutMs);
            cc.setMaxConcurrentCheckpoints(maxConcurrentCheckpoints);
            cc.setTolerableCheckpointFailureNumber(tolerableFailedCheckpoints);
            cc.setExternalizedCheckpointRetention(ExternalizedCheckpointRetention.DELETE_ON_CANCELLATION);
        }
        // Restart strategy: left to the cluster config (restart-strategy.type), which live/ sets.
    }
}
