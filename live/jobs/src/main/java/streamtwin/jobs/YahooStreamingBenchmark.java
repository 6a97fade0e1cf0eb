package streamtwin.jobs;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.functions.FilterFunction;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

/**
 * Yahoo Streaming Benchmark as the Khaos YSB job (workloads.md §1.8, khaos.md §10): Kafka → Parse →
 * filter event_type == "view" → project (ad_id, event_time) → join ad → campaign → keyBy campaign →
 * 10 s tumbling event-time window count → Format → Kafka.
 *
 * <p>The join table is the generator's: {@code streamtwin workload events ysb --mapping [--seed S]}
 * writes it, one {"ad_id":…,"campaign_id":…} line per ad, and {@code --mapping FILE} passes it in.
 * It is read in main(), i.e. where the job graph is built (on the JobManager for a REST jar run),
 * and travels to the tasks inside the join function, like the original's per-task Redis cache
 * without Redis. Ads missing from it are dropped, as the original drops failed Redis lookups.
 *
 * <p>Output, one JSON line per campaign and window:
 * {"campaign_id":…,"window_end":…,"count":…,"event_time":…,"emit_time":…}, where event_time is the
 * latest view time counted in the window and emit_time the wall clock when Format ran.
 *
 * <p>Arguments: see {@link JobOptions}, plus {@code --mapping FILE} (required).
 */
public final class YahooStreamingBenchmark {
    private YahooStreamingBenchmark() {}

    static final Duration WINDOW = Duration.ofSeconds(10);

    public static void main(String[] args) throws Exception {
        JobOptions o = JobOptions.parse(args, "ysb", 100, true);
        if (o.mapping == null) {
            throw new IllegalArgumentException("--mapping FILE is required (streamtwin workload events ysb --mapping)");
        }
        Map<String, String> adToCampaign = readMapping(Path.of(o.mapping));
        StreamExecutionEnvironment env = o.environment();
        pipeline(env, o, adToCampaign);
        env.execute(o.jobName("YahooStreamingBenchmark"));
    }

    /** Kafka source → {@link #build} → Kafka sink. */
    static void pipeline(StreamExecutionEnvironment env, JobOptions o, Map<String, String> adToCampaign) {
        KafkaIO.sink(build(env, KafkaIO.source(env, o, YahooStreamingBenchmark::eventTime), adToCampaign), o);
    }

    /** Timestamp assigner of the source: "event_time" (full format) or "ts" (compact). */
    static long eventTime(String line, long kafkaTimestamp) {
        return AdEvent.eventTimeOf(line);
    }

    /**
     * The job between source and sink. {@code input} must carry event timestamps and watermarks
     * (the Kafka source does; tests use {@link KafkaIO#watermarks} on a collection). {@code env} is
     * unused today; it is part of the signature so both jobs are built alike.
     */
    public static DataStream<String> build(
            StreamExecutionEnvironment env, DataStream<String> input, Map<String, String> adToCampaign) {
        return input
                .flatMap(new Parse()).name("Parse").uid("parse")
                .filter(new ViewFilter()).name("Filter views").uid("filter-views")
                .map(new Project()).name("Project").uid("project")
                .flatMap(new CampaignJoin(adToCampaign)).name("Join campaign").uid("join-campaign")
                .keyBy(t -> t.f0, Types.STRING)
                .window(TumblingEventTimeWindows.of(WINDOW))
                .aggregate(new CountViews(), new WindowResult()).name("Window count").uid("window-count")
                .map(new Format()).name("Format").uid("format");
    }

    /** Reads the ad → campaign table written by {@code streamtwin workload events ysb --mapping}. */
    static Map<String, String> readMapping(Path file) throws IOException {
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return readMapping(r, file.toString());
        }
    }

    static Map<String, String> readMapping(Reader reader, String name) throws IOException {
        Map<String, String> m = new HashMap<>();
        BufferedReader lines = new BufferedReader(reader);
        int n = 0;
        for (String line; (line = lines.readLine()) != null; ) {
            n++;
            if (line.isBlank()) {
                continue;
            }
            String ad = null, campaign = null;
            try (JsonParser p = Json.parser(line)) {
                if (p.nextToken() == JsonToken.START_OBJECT) {
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String field = p.currentName();
                        p.nextToken();
                        switch (field) {
                            case "ad_id" -> ad = p.getValueAsString();
                            case "campaign_id" -> campaign = p.getValueAsString();
                            default -> p.skipChildren();
                        }
                    }
                }
            } catch (IOException e) {
                ad = null; // reported below
            }
            if (ad == null || campaign == null) {
                throw new IOException(name + ":" + n + ": want {\"ad_id\":…,\"campaign_id\":…}, got " + line);
            }
            m.put(ad, campaign);
        }
        if (m.isEmpty()) {
            throw new IOException(name + ": empty ad → campaign mapping");
        }
        return m;
    }

    /** Line → AdEvent; malformed lines are dropped and counted (metric malformedRecords). */
    static class Parse extends RichFlatMapFunction<String, AdEvent> {
        private transient Counter malformed;

        @Override
        public void open(OpenContext ctx) {
            malformed = getRuntimeContext().getMetricGroup().counter("malformedRecords");
        }

        @Override
        public void flatMap(String line, Collector<AdEvent> out) {
            AdEvent e = AdEvent.parse(line);
            if (e != null) {
                out.collect(e);
            } else {
                malformed.inc();
            }
        }
    }

    static class ViewFilter implements FilterFunction<AdEvent> {
        @Override
        public boolean filter(AdEvent e) {
            return "view".equals(e.eventType);
        }
    }

    /** (ad_id, event_time), the original's projection. */
    static class Project implements MapFunction<AdEvent, Tuple2<String, Long>> {
        @Override
        public Tuple2<String, Long> map(AdEvent e) {
            return Tuple2.of(e.adId, e.eventTime);
        }
    }

    /** (ad_id, t) → (campaign_id, t); unknown ads dropped and counted (metric unknownAds). */
    static class CampaignJoin extends RichFlatMapFunction<Tuple2<String, Long>, Tuple2<String, Long>> {
        private final HashMap<String, String> adToCampaign; // HashMap: Serializable, shipped with the function
        private transient Counter unknown;

        CampaignJoin(Map<String, String> adToCampaign) {
            this.adToCampaign = new HashMap<>(adToCampaign);
        }

        @Override
        public void open(OpenContext ctx) {
            unknown = getRuntimeContext().getMetricGroup().counter("unknownAds");
        }

        @Override
        public void flatMap(Tuple2<String, Long> view, Collector<Tuple2<String, Long>> out) {
            String campaign = adToCampaign.get(view.f0);
            if (campaign != null) {
                out.collect(Tuple2.of(campaign, view.f1));
            } else {
                unknown.inc();
            }
        }
    }

    /** Incremental count: accumulator and result (views, latest event time). */
    static class CountViews implements AggregateFunction<Tuple2<String, Long>, Tuple2<Long, Long>, Tuple2<Long, Long>> {
        @Override
        public Tuple2<Long, Long> createAccumulator() {
            return Tuple2.of(0L, Long.MIN_VALUE);
        }

        @Override
        public Tuple2<Long, Long> add(Tuple2<String, Long> view, Tuple2<Long, Long> acc) {
            return Tuple2.of(acc.f0 + 1, Math.max(acc.f1, view.f1));
        }

        @Override
        public Tuple2<Long, Long> getResult(Tuple2<Long, Long> acc) {
            return acc;
        }

        @Override
        public Tuple2<Long, Long> merge(Tuple2<Long, Long> a, Tuple2<Long, Long> b) {
            return Tuple2.of(a.f0 + b.f0, Math.max(a.f1, b.f1));
        }
    }

    /** One campaign's view count in one window. */
    public static class CampaignCount {
        public String campaignId;
        public long windowEnd;
        public long count;
        /** Latest event time among the counted views. */
        public long eventTime;

        public CampaignCount() {}

        public CampaignCount(String campaignId, long windowEnd, long count, long eventTime) {
            this.campaignId = campaignId;
            this.windowEnd = windowEnd;
            this.count = count;
            this.eventTime = eventTime;
        }
    }

    /** Adds the key and the window end to the count. */
    static class WindowResult extends ProcessWindowFunction<Tuple2<Long, Long>, CampaignCount, String, TimeWindow> {
        @Override
        public void process(String campaign, Context ctx, Iterable<Tuple2<Long, Long>> counts, Collector<CampaignCount> out) {
            Tuple2<Long, Long> c = counts.iterator().next(); // exactly one: the aggregate's result
            out.collect(new CampaignCount(campaign, ctx.window().getEnd(), c.f0, c.f1));
        }
    }

    static String format(CampaignCount c, long emitTime) {
        return Json.object(g -> {
            g.writeStringField("campaign_id", c.campaignId);
            g.writeNumberField("window_end", c.windowEnd);
            g.writeNumberField("count", c.count);
            g.writeNumberField("event_time", c.eventTime);
            g.writeNumberField("emit_time", emitTime);
        });
    }

    /** Last operator before the sink, so emit_time is as close to the Kafka write as possible. */
    static class Format implements MapFunction<CampaignCount, String> {
        @Override
        public String map(CampaignCount c) {
            return format(c, System.currentTimeMillis());
        }
    }
}
