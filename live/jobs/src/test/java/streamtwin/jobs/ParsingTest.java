package streamtwin.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Parsing of the exact lines the Go generators write. */
class ParsingTest {

    @Test
    void ysbFullFormat() {
        List<String> lines = Samples.lines("ysb-events.jsonl");
        AdEvent first = AdEvent.parse(lines.get(0));
        assertNotNull(first);
        assertEquals("dd195983-6c10-4825-88d1-ab92f537df34", first.adId);
        assertEquals("click", first.eventType);
        assertEquals(1627862400000L, first.eventTime);
        AdEvent second = AdEvent.parse(lines.get(1));
        assertEquals("view", second.eventType);
        assertEquals(1627862400040L, second.eventTime); // 25/s: 40 ms apart
    }

    @Test
    void ysbCompactFormatCarriesTheSameEvents() {
        // Same seed ⇒ the compact stream has the same (ad, type, time) as the full one.
        List<String> full = Samples.lines("ysb-events.jsonl");
        List<String> compact = Samples.lines("ysb-events-compact.jsonl");
        for (int i = 0; i < compact.size(); i++) {
            AdEvent f = AdEvent.parse(full.get(i)), c = AdEvent.parse(compact.get(i));
            assertNotNull(c, compact.get(i));
            assertEquals(f.toString(), c.toString());
        }
    }

    @Test
    void everySampleLineParsesAndTheCheapTimeScanAgrees() {
        for (String line : Samples.lines("ysb-events.jsonl")) {
            AdEvent e = AdEvent.parse(line);
            assertNotNull(e, line);
            assertEquals(e.eventTime, AdEvent.eventTimeOf(line), line);
        }
        for (String line : Samples.lines("ysb-events-compact.jsonl")) {
            assertEquals(AdEvent.parse(line).eventTime, AdEvent.eventTimeOf(line), line);
        }
        for (String line : Samples.lines("iot-events.jsonl")) {
            TrafficEvent e = TrafficEvent.parse(line);
            assertNotNull(e, line);
            assertEquals(e.ts, TrafficEvent.eventTimeOf(line), line);
        }
    }

    @Test
    void iotEvent() {
        TrafficEvent e = TrafficEvent.parse(Samples.lines("iot-events.jsonl").get(0));
        assertEquals("W-I 6737", e.plate);
        assertEquals(52.51645, e.lat, 0);
        assertEquals(13.38081, e.lon, 0);
        assertEquals(1627862400000L, e.ts);
        // Field order does not matter.
        TrafficEvent r = TrafficEvent.parse("{\"ts\":5,\"pt\":{\"lg\":13.5,\"lt\":52.5},\"lp\":\"B-X 1\"}");
        assertEquals("TrafficEvent{B-X 1, 52.5, 13.5, 5}", r.toString());
    }

    @Test
    void malformedLinesAreRejected() {
        for (String bad : List.of("", "not json", "[]", "{\"lp\":\"A-B 1\",\"ts\":1}",
                "{\"lp\":\"A-B 1\",\"pt\":{\"lt\":52.5},\"ts\":1}", "{\"lp\":\"A-B 1\",\"pt\":{\"lt\":52.5,\"lg\":13.4}",
                "{\"lp\":1,\"pt\":{\"lt\":52.5,\"lg\":13.4},\"ts\":1}")) {
            assertNull(TrafficEvent.parse(bad), bad);
        }
        for (String bad : List.of("", "{", "{\"ad_id\": \"a\", \"event_type\": \"view\"}",
                "{\"ad_id\": \"a\", \"event_type\": \"view\", \"event_time\": \"soon\"}",
                "{\"id\":\"a\",\"ts\":1}")) {
            assertNull(AdEvent.parse(bad), bad);
        }
        assertEquals(Long.MIN_VALUE, AdEvent.eventTimeOf("{\"event_time\": \"soon\"}"));
        assertEquals(Long.MIN_VALUE, TrafficEvent.eventTimeOf("{\"lp\":\"x\"}"));
    }

    @Test
    void longFieldScan() {
        assertEquals(42, Json.longField("{\"ts\":42}", "ts"));
        assertEquals(42, Json.longField("{\"ts\" : \"42\"}", "ts"));
        assertEquals(-3, Json.longField("{\"ts\":-3}", "ts"));
        assertEquals(Long.MIN_VALUE, Json.longField("{\"ts\":}", "ts"));
        assertEquals(Long.MIN_VALUE, Json.longField("{\"tsx\":1}", "ts"));
        assertEquals(Long.MIN_VALUE, Json.longField("{\"ts\":1234567890123456789012}", "ts"));
    }
}
