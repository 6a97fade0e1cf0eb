package streamtwin.jobs;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/** The generator samples under src/test/resources/samples (see the README there). */
final class Samples {
    private Samples() {}

    static List<String> lines(String name) {
        try (InputStream in = open(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Map<String, String> ysbMapping() {
        try (Reader r = new InputStreamReader(open("ysb-mapping.jsonl"), StandardCharsets.UTF_8)) {
            return YahooStreamingBenchmark.readMapping(r, "ysb-mapping.jsonl");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static InputStream open(String name) {
        InputStream in = Samples.class.getResourceAsStream("/samples/" + name);
        if (in == null) {
            throw new IllegalStateException("missing test resource samples/" + name);
        }
        return in;
    }
}
