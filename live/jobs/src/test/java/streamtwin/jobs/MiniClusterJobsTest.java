package streamtwin.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.flink.api.common.eventtime.SerializableTimestampAssigner;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Both jobs end to end on a MiniCluster (1 TaskManager, 2 slots, parallelism 2, chaining off as in
 * production), with the generator samples as a bounded input in place of Kafka. The end of the
 * input sends the final watermark, so every window fires; results are compared with a plain-Java
 * recomputation from the same samples.
 */
class MiniClusterJobsTest {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder()
                    .setNumberTaskManagers(1)
                    .setNumberSlotsPerTaskManager(2)
                    .build());

    /** A production-configured environment from job arguments (the MiniCluster is the context). */
    static StreamExecutionEnvironment env(String... extra) {
        List<String> args = new ArrayList<>(List.of("--input-topic", "in", "--output-topic", "out", "--parallelism", "2"));
        args.addAll(List.of(extra));
        return JobOptions.parse(args.toArray(String[]::new), "test", 1, false).environment();
    }

    /** Samples as the input, with the jobs' own watermark strategy (as the Kafka source applies it). */
    static DataStream<String> input(StreamExecutionEnvironment env, String sample, SerializableTimestampAssigner<String> time) {
        return env.fromData(Samples.lines(sample)).name("Samples").uid("samples")
                .assignTimestampsAndWatermarks(KafkaIO.watermarks(time, Duration.ofSeconds(1), Duration.ofSeconds(5)))
                .name("Watermarks").uid("watermarks");
    }

    static List<Map<String, Object>> run(DataStream<String> out) throws Exception {
        List<Map<String, Object>> records = new ArrayList<>();
        try (CloseableIterator<String> it = out.executeAndCollect("test")) {
            it.forEachRemaining(line -> records.add(parse(line)));
        }
        return records;
    }

    @Test
    void ysbCountsViewsPerCampaignWindow() throws Exception {
        Map<String, String> mapping = Samples.ysbMapping();
        StreamExecutionEnvironment env = env("--state-backend", "hashmap", "--checkpoint-interval", "1000");
        long before = System.currentTimeMillis();
        List<Map<String, Object>> out = run(YahooStreamingBenchmark.build(
                env, input(env, "ysb-events.jsonl", YahooStreamingBenchmark::eventTime), mapping));

        // Expected: views per (campaign, 10 s window end), with the latest view time.
        Map<String, long[]> want = new TreeMap<>();
        for (String line : Samples.lines("ysb-events.jsonl")) {
            AdEvent e = AdEvent.parse(line);
            if (e.eventType.equals("view")) {
                long end = e.eventTime - e.eventTime % 10_000 + 10_000;
                long[] c = want.computeIfAbsent(mapping.get(e.adId) + "@" + end, k -> new long[] {0, Long.MIN_VALUE});
                c[0]++;
                c[1] = Math.max(c[1], e.eventTime);
            }
        }
        Map<String, long[]> got = new TreeMap<>();
        for (Map<String, Object> r : out) {
            got.put(r.get("campaign_id") + "@" + r.get("window_end"), new long[] {(long) r.get("count"), (long) r.get("event_time")});
            long emit = (long) r.get("emit_time");
            assertTrue(emit >= before && emit <= System.currentTimeMillis(), "emit_time is the wall clock: " + r);
        }
        assertEquals(want.keySet(), got.keySet());
        want.forEach((k, c) -> assertEquals(List.of(c[0], c[1]), List.of(got.get(k)[0], got.get(k)[1]), k));
        assertEquals(323, got.values().stream().mapToLong(c -> c[0]).sum()); // all views counted once
        assertEquals(4, out.stream().map(r -> r.get("window_end")).distinct().count()); // 40 s = 4 windows
    }

    @Test
    void trafficFindsSpeedingVehicles() throws Exception {
        // RocksDB here, hashmap above: both backends run the job.
        StreamExecutionEnvironment env = env("--state-backend", "rocksdb", "--checkpoint-interval", "1000");
        List<Map<String, Object>> out = run(TrafficMonitoring.build(
                env, input(env, "iot-events.jsonl", TrafficMonitoring::eventTime)));

        // Expected: for every vehicle and 5 s window sliding by 1 s, the same speed function.
        Map<String, List<TrafficEvent>> byPlate = new HashMap<>();
        for (String line : Samples.lines("iot-events.jsonl")) {
            TrafficEvent e = TrafficEvent.parse(line);
            byPlate.computeIfAbsent(e.plate, k -> new ArrayList<>()).add(e);
        }
        TreeSet<String> want = new TreeSet<>();
        byPlate.forEach((plate, events) -> {
            TreeSet<Long> ends = new TreeSet<>();
            for (TrafficEvent e : events) {
                for (int j = 1; j <= 5; j++) ends.add(e.ts - e.ts % 1000 + 1000L * j);
            }
            for (long end : ends) {
                List<TrafficEvent> in = events.stream().filter(e -> e.ts >= end - 5000 && e.ts < end).toList();
                double v = TrafficMonitoring.averageSpeedKmh(in);
                if (v >= 70) {
                    long latest = in.stream().mapToLong(e -> e.ts).max().getAsLong();
                    want.add(plate + "@" + end + "@" + latest + "@" + Math.round(v * 100) / 100.0);
                }
            }
        });
        TreeSet<String> got = new TreeSet<>();
        for (Map<String, Object> r : out) {
            got.add(r.get("vehicle") + "@" + r.get("window_end") + "@" + r.get("event_time") + "@" + r.get("avg_speed_kmh"));
            assertTrue((double) r.get("avg_speed_kmh") >= 70, r.toString());
        }
        assertFalse(want.isEmpty(), "the sample should contain a speeding vehicle");
        assertEquals(want, got);
    }

    /** A flat JSON object to a map of String, Long and Double values. */
    static Map<String, Object> parse(String json) {
        Map<String, Object> m = new HashMap<>();
        try (JsonParser p = Json.parser(json)) {
            assertEquals(JsonToken.START_OBJECT, p.nextToken());
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String k = p.currentName();
                JsonToken t = p.nextToken();
                m.put(k, switch (t) {
                    case VALUE_NUMBER_INT -> p.getLongValue();
                    case VALUE_NUMBER_FLOAT -> p.getDoubleValue();
                    default -> p.getText();
                });
            }
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + json, e);
        }
        return m;
    }
}
