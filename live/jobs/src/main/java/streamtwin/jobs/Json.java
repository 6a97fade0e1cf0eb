package streamtwin.jobs;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;

/** JSON helpers shared by both jobs. Jackson comes with the Kafka connector and is shaded in. */
final class Json {
    private Json() {}

    /** Thread-safe factory for streaming parsers and generators (no object mapping, no reflection). */
    static final JsonFactory FACTORY = new JsonFactory();

    static JsonParser parser(String line) throws IOException {
        return FACTORY.createParser(line);
    }

    /** Writes one JSON object; {@code body} fills in its fields. */
    static String object(ObjectWriter body) {
        StringWriter out = new StringWriter(160);
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            g.writeStartObject();
            body.write(g);
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does not fail
        }
        return out.toString();
    }

    @FunctionalInterface
    interface ObjectWriter {
        void write(JsonGenerator g) throws IOException;
    }

    /**
     * Cheap scan for the integer value of top-level-looking field {@code key} (as a JSON number or a
     * string of digits), or {@link Long#MIN_VALUE} if absent or not an integer.
     *
     * <p>Why not the full parser: this runs in the Kafka source's timestamp assigner, once per record,
     * before the job's Parse operator parses the record fully; a substring scan keeps that double
     * work negligible. It is exact for the generators' flat records, whose keys never occur inside
     * values (UUIDs, plates and event types contain no quotes).
     */
    static long longField(String line, String key) {
        String quoted = '"' + key + '"';
        int i = line.indexOf(quoted);
        if (i < 0) {
            return Long.MIN_VALUE;
        }
        int n = line.length();
        i += quoted.length();
        while (i < n && line.charAt(i) == ' ') i++;
        if (i >= n || line.charAt(i) != ':') {
            return Long.MIN_VALUE;
        }
        i++;
        while (i < n && line.charAt(i) == ' ') i++;
        if (i < n && line.charAt(i) == '"') i++;
        boolean negative = i < n && line.charAt(i) == '-';
        if (negative) i++;
        long v = 0;
        int digits = 0;
        for (; i < n && digits < 18; i++, digits++) {
            char c = line.charAt(i);
            if (c < '0' || c > '9') {
                break;
            }
            v = v * 10 + (c - '0');
        }
        if (digits == 0 || (i < n && Character.isDigit(line.charAt(i)))) {
            return Long.MIN_VALUE; // no digits, or too many for an epoch-ms time
        }
        return negative ? -v : v;
    }
}
