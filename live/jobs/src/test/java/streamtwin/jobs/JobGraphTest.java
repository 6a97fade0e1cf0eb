package streamtwin.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.junit.jupiter.api.Test;

/**
 * The production topology with the real Kafka source and sink, built but not run (no broker is
 * contacted until execution): vertex names the driver looks for, one vertex per operator, a uid on
 * every operator, and the options reaching the job configuration.
 */
class JobGraphTest {
    static final String[] ARGS = {
        "--bootstrap", "127.0.0.1:9", "--input-topic", "in", "--output-topic", "out", "--group", "g",
        "--parallelism", "2", "--checkpoint-interval", "30000", "--state-backend", "rocksdb",
        "--checkpoint-dir", "file:///tmp/streamtwin-ckpt",
    };

    static List<String> vertexNames(StreamExecutionEnvironment env) {
        JobGraph job = env.getStreamGraph(false).getJobGraph();
        return job.getVerticesSortedTopologicallyFromSources().stream().map(JobVertex::getName).toList();
    }

    @Test
    void trafficTopology() {
        JobOptions o = JobOptions.parse(ARGS, "traffic", 10, false);
        StreamExecutionEnvironment env = o.environment();
        TrafficMonitoring.pipeline(env, o);
        checkUids(env.getStreamGraph(false));
        assertEquals(List.of("Source: Kafka", "Parse", "POI filter", "Average speed", "Speed filter", "Format",
                "Sink: Kafka: Writer", "Sink: Kafka: Committer"), vertexNames(env));
    }

    @Test
    void ysbTopologyAndOptions() {
        JobOptions o = JobOptions.parse(ARGS, "ysb", 100, true);
        StreamExecutionEnvironment env = o.environment();
        YahooStreamingBenchmark.pipeline(env, o, Samples.ysbMapping());
        StreamGraph graph = env.getStreamGraph(false);
        checkUids(graph);
        assertEquals("rocksdb", graph.getJobConfiguration().get(StateBackendOptions.STATE_BACKEND));
        assertEquals(true, graph.getJobConfiguration().get(CheckpointingOptions.INCREMENTAL_CHECKPOINTS));
        assertEquals("file:///tmp/streamtwin-ckpt", graph.getJobConfiguration().get(CheckpointingOptions.CHECKPOINTS_DIRECTORY));
        assertEquals(30000, env.getCheckpointConfig().getCheckpointInterval());
        assertEquals(100, env.getCheckpointConfig().getMaxConcurrentCheckpoints());
        assertEquals(List.of("Source: Kafka", "Parse", "Filter views", "Project", "Join campaign", "Window count",
                "Format", "Sink: Kafka: Writer", "Sink: Kafka: Committer"), vertexNames(env));
    }

    /** Savepoints map state by uid: every operator must have one set by us, not a generated one. */
    static void checkUids(StreamGraph graph) {
        for (StreamNode n : graph.getStreamNodes()) {
            assertNotNull(n.getTransformationUID(), "no uid on " + n.getOperatorName());
        }
    }

    @Test
    void sinkRecordsLeaveTheTimestampToTheProducer() {
        var r = new KafkaIO.WallClockRecords("out").serialize("{\"count\":1}", null, 1627862409999L);
        assertEquals("out", r.topic());
        assertNull(r.timestamp(), "the producer must stamp the send time, not the window's event time");
        assertEquals("{\"count\":1}", new String(r.value(), java.nio.charset.StandardCharsets.UTF_8));
    }

    @Test
    void badArguments() {
        assertThrows(RuntimeException.class, () -> JobOptions.parse(new String[] {"--output-topic", "o"}, "x", 1, false));
        assertThrows(IllegalArgumentException.class, () -> JobOptions.parse(
                new String[] {"--input-topic", "i", "--output-topic", "o", "--paralelism", "2"}, "x", 1, false));
        assertThrows(IllegalArgumentException.class, () -> JobOptions.parse(
                new String[] {"--input-topic", "i", "--output-topic", "o", "--state-backend", "memory"}, "x", 1, false));
        assertTrue(JobOptions.parse(new String[] {"--input-topic", "i", "--output-topic", "o"}, "x", 1, false).mapping == null);
        assertThrows(IllegalArgumentException.class, () -> JobOptions.parse(
                new String[] {"--input-topic", "i", "--output-topic", "o", "--delivery-guarantee", "once"}, "x", 1, false));
    }

    @Test
    void deliveryGuarantee() {
        String[] base = {"--input-topic", "i", "--output-topic", "o"};
        assertTrue(!JobOptions.parse(base, "x", 1, false).exactlyOnce);
        String[] eo = {"--input-topic", "i", "--output-topic", "o", "--delivery-guarantee", "exactly-once"};
        assertTrue(JobOptions.parse(eo, "x", 1, false).exactlyOnce);
    }
}
