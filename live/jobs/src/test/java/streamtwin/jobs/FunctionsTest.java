package streamtwin.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;

/** The jobs' pure functions, on generator samples where they exist. */
class FunctionsTest {

    @Test
    void distanceMatchesTheGoGenerator() {
        // Values printed by workloads/iot.Haversine for the same points.
        assertEquals(306.153087952, Geo.distanceM(52.51623, 13.38532, 52.51645, 13.38081), 1e-6);
        assertEquals(1111.950802335, Geo.distanceM(52.51623, 13.38532, 52.52623, 13.38532), 1e-6);
        assertEquals(2.783321228, Geo.distanceM(52.51457, 13.3862, 52.514572, 13.386241), 1e-6);
        assertEquals(0, Geo.distanceM(52.5, 13.4, 52.5, 13.4));
    }

    @Test
    void poiFilter() {
        // Every graph node is within 701 m of the POI, so every generated position passes.
        for (String line : Samples.lines("iot-events.jsonl")) {
            assertTrue(TrafficMonitoring.nearPoi(TrafficEvent.parse(line)), line);
        }
        // 0.00899° of latitude ≈ 999.6 m, 0.009° ≈ 1000.8 m.
        assertTrue(TrafficMonitoring.nearPoi(new TrafficEvent("x", 52.51623 + 0.00899, 13.38532, 0)));
        assertFalse(TrafficMonitoring.nearPoi(new TrafficEvent("x", 52.51623 + 0.009, 13.38532, 0)));
    }

    @Test
    void averageSpeed() {
        // Due north 20 m per second = 72 km/h, given out of order.
        double dLat = 20 / (Geo.EARTH_RADIUS_M * Math.PI / 180);
        List<TrafficEvent> pts = new ArrayList<>();
        for (int k : new int[] {3, 0, 4, 1, 2}) {
            pts.add(new TrafficEvent("x", 52.5 + k * dLat, 13.4, 1000L * k));
        }
        assertEquals(72.0, TrafficMonitoring.averageSpeedKmh(pts), 1e-9);
        assertTrue(Double.isNaN(TrafficMonitoring.averageSpeedKmh(pts.subList(0, 1))));
        assertTrue(Double.isNaN(TrafficMonitoring.averageSpeedKmh(
                List.of(new TrafficEvent("x", 52.5, 13.4, 7), new TrafficEvent("x", 52.6, 13.4, 7)))));
    }

    @Test
    void averageSpeedOfSampleTripsStaysInTheGeneratorsRange() {
        // Speeds are drawn from U{10..79} km/h per segment; a trip's mean cannot exceed 79.
        Map<String, List<TrafficEvent>> trips = new LinkedHashMap<>();
        for (String line : Samples.lines("iot-events.jsonl")) {
            TrafficEvent e = TrafficEvent.parse(line);
            trips.computeIfAbsent(e.plate, k -> new ArrayList<>()).add(e);
        }
        for (var trip : trips.entrySet()) {
            double v = TrafficMonitoring.averageSpeedKmh(trip.getValue());
            assertTrue(Double.isNaN(v) || (v > 0 && v <= 79.0 + 1e-6), trip.getKey() + ": " + v);
        }
    }

    @Test
    void mappingFromTheGenerator() {
        Map<String, String> m = Samples.ysbMapping();
        assertEquals(1000, m.size());
        Map<String, Integer> adsPerCampaign = new HashMap<>();
        m.values().forEach(c -> adsPerCampaign.merge(c, 1, Integer::sum));
        assertEquals(100, adsPerCampaign.size());
        assertTrue(adsPerCampaign.values().stream().allMatch(n -> n == 10));
        assertEquals("d57acfe9-b647-406d-8ae7-347befec7f64", m.get("2d565df2-c49e-4318-8697-37b37dec7926"));
        assertThrows(IOException.class, () -> YahooStreamingBenchmark.readMapping(new StringReader("{\"ad_id\":\"a\"}\n"), "t"));
        assertThrows(IOException.class, () -> YahooStreamingBenchmark.readMapping(new StringReader(""), "t"));
    }

    @Test
    void ysbFilterProjectJoinOnSamples() throws Exception {
        Map<String, String> mapping = Samples.ysbMapping();
        var filter = new YahooStreamingBenchmark.ViewFilter();
        var project = new YahooStreamingBenchmark.Project();
        var join = new YahooStreamingBenchmark.CampaignJoin(mapping);
        // open() is not called outside Flink; the join only needs its counter for unknown ads.
        List<Tuple2<String, Long>> joined = new ArrayList<>();
        Collector<Tuple2<String, Long>> out = new Collector<>() {
            public void collect(Tuple2<String, Long> t) { joined.add(t); }
            public void close() {}
        };
        int views = 0;
        for (String line : Samples.lines("ysb-events.jsonl")) {
            AdEvent e = AdEvent.parse(line);
            if (!filter.filter(e)) {
                assertTrue(Set.of("click", "purchase").contains(e.eventType));
                continue;
            }
            views++;
            Tuple2<String, Long> p = project.map(e);
            assertEquals(Tuple2.of(e.adId, e.eventTime), p);
            join.flatMap(p, out);
            assertEquals(Tuple2.of(mapping.get(e.adId), e.eventTime), joined.get(joined.size() - 1));
        }
        assertEquals(323, views); // grep -c '"view"' ysb-events.jsonl: close to 1000 / 3
        assertEquals(views, joined.size());
    }

    @Test
    void countAggregate() {
        var agg = new YahooStreamingBenchmark.CountViews();
        var acc = agg.createAccumulator();
        acc = agg.add(Tuple2.of("c", 30L), acc);
        acc = agg.add(Tuple2.of("c", 10L), acc);
        assertEquals(Tuple2.of(2L, 30L), agg.getResult(acc));
        assertEquals(Tuple2.of(3L, 40L), agg.merge(acc, agg.add(Tuple2.of("c", 40L), agg.createAccumulator())));
    }

    @Test
    void outputFormats() throws IOException {
        String ysb = YahooStreamingBenchmark.format(
                new YahooStreamingBenchmark.CampaignCount("c-1", 1627862410000L, 17, 1627862409960L), 1627862411234L);
        assertEquals("{\"campaign_id\":\"c-1\",\"window_end\":1627862410000,\"count\":17,"
                + "\"event_time\":1627862409960,\"emit_time\":1627862411234}", ysb);
        String iot = TrafficMonitoring.format(
                new TrafficMonitoring.VehicleSpeed("KA-XY \"4711\"", 74.56789, 1627862405000L, 1627862404000L), 5L);
        assertEquals("{\"vehicle\":\"KA-XY \\\"4711\\\"\",\"avg_speed_kmh\":74.57,\"window_end\":1627862405000,"
                + "\"event_time\":1627862404000,\"emit_time\":5}", iot);
        assertEquals(Set.of("vehicle", "avg_speed_kmh", "window_end", "event_time", "emit_time"), keys(iot));
    }

    static Set<String> keys(String json) throws IOException {
        Set<String> keys = new HashSet<>();
        try (JsonParser p = Json.parser(json)) {
            assertEquals(JsonToken.START_OBJECT, p.nextToken());
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                keys.add(p.currentName());
                p.nextToken();
            }
        }
        return keys;
    }
}
