package streamtwin.jobs;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;

/**
 * One vehicle position, as written by {@code streamtwin workload events iot} (workloads/iot), the
 * dos-group v3 schema:
 *
 * <pre>
 * {"lp":"KA-XY 4711","pt":{"lt":52.51534,"lg":13.38443},"ts":1630930000000}
 * </pre>
 *
 * A Flink POJO (public fields, no-arg constructor), so it is serialised by the PojoSerializer.
 */
public class TrafficEvent {
    /** Licence plate: the vehicle (trip) key. */
    public String plate;
    /** Latitude and longitude in degrees (float32 in the generator; widened here). */
    public double lat;
    public double lon;
    /** Epoch milliseconds, whole seconds in the generator. */
    public long ts;

    public TrafficEvent() {}

    public TrafficEvent(String plate, double lat, double lon, long ts) {
        this.plate = plate;
        this.lat = lat;
        this.lon = lon;
        this.ts = ts;
    }

    /** Event time of a raw line for the source's timestamp assigner ({@link Long#MIN_VALUE} if none). */
    static long eventTimeOf(String line) {
        return Json.longField(line, "ts");
    }

    /** Parses a line; null if it is not a complete position event. */
    static TrafficEvent parse(String line) {
        TrafficEvent e = new TrafficEvent();
        e.ts = Long.MIN_VALUE;
        boolean hasLat = false, hasLon = false;
        try (JsonParser p = Json.parser(line)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                switch (field) {
                    case "lp" -> e.plate = value == JsonToken.VALUE_STRING ? p.getText() : null;
                    case "ts" -> e.ts = p.getValueAsLong(Long.MIN_VALUE);
                    case "pt" -> {
                        if (value != JsonToken.START_OBJECT) {
                            return null;
                        }
                        while (p.nextToken() == JsonToken.FIELD_NAME) {
                            String coord = p.currentName();
                            JsonToken number = p.nextToken();
                            if (!number.isNumeric()) {
                                p.skipChildren();
                                continue;
                            }
                            if (coord.equals("lt")) {
                                e.lat = p.getDoubleValue();
                                hasLat = true;
                            } else if (coord.equals("lg")) {
                                e.lon = p.getDoubleValue();
                                hasLon = true;
                            }
                        }
                    }
                    default -> p.skipChildren();
                }
            }
        } catch (IOException malformed) {
            return null;
        }
        return e.plate != null && hasLat && hasLon && e.ts != Long.MIN_VALUE ? e : null;
    }

    @Override
    public String toString() {
        return "TrafficEvent{" + plate + ", " + lat + ", " + lon + ", " + ts + "}";
    }
}
