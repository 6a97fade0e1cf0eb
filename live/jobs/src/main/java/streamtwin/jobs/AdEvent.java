package streamtwin.jobs;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;

/**
 * One YSB ad event, as written by {@code streamtwin workload events ysb} (workloads/ysb). Two line
 * formats are accepted:
 *
 * <pre>
 * full    {"user_id": "…", "page_id": "…", "ad_id": "…", "ad_type": "banner", "event_type": "view",
 *          "event_time": "1627862400000", "ip_address": "1.2.3.4"}   (core.clj, all strings)
 * compact {"ts":1627862400000,"id":"…","et":"view"}                    (ts a number)
 * </pre>
 *
 * Only the fields the job uses are kept. A Flink POJO (public fields, no-arg constructor), so it is
 * serialised by the PojoSerializer, not Kryo.
 */
public class AdEvent {
    public String adId;
    public String eventType;
    /** Epoch milliseconds. */
    public long eventTime;

    public AdEvent() {}

    public AdEvent(String adId, String eventType, long eventTime) {
        this.adId = adId;
        this.eventType = eventType;
        this.eventTime = eventTime;
    }

    /** Event time of a raw line for the source's timestamp assigner ({@link Long#MIN_VALUE} if none). */
    static long eventTimeOf(String line) {
        long t = Json.longField(line, "event_time");
        return t != Long.MIN_VALUE ? t : Json.longField(line, "ts");
    }

    /** Parses a line in either format; null if it is not a complete ad event. */
    static AdEvent parse(String line) {
        AdEvent e = new AdEvent();
        e.eventTime = Long.MIN_VALUE;
        try (JsonParser p = Json.parser(line)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                p.nextToken();
                switch (field) {
                    case "ad_id", "id" -> e.adId = p.getValueAsString();
                    case "event_type", "et" -> e.eventType = p.getValueAsString();
                    // core.clj writes the time as a string of digits, the compact format as a number.
                    case "event_time", "ts" -> e.eventTime = p.getValueAsLong(Long.MIN_VALUE);
                    default -> p.skipChildren(); // other fields: ignored (nested values skipped whole)
                }
            }
        } catch (IOException malformed) {
            return null;
        }
        return e.adId != null && e.eventType != null && e.eventTime != Long.MIN_VALUE ? e : null;
    }

    @Override
    public String toString() {
        return "AdEvent{" + adId + ", " + eventType + ", " + eventTime + "}";
    }
}
