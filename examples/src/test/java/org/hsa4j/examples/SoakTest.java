package org.hsa4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code ./hsa4j soak} briefly: every packet completes, none is lost, and the report has both memory lines. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SoakTest {
    private static final Pattern DONE = Pattern.compile(
            "soak: done after [0-9.]+ s: packets ([0-9,]+), completions ([0-9,]+), lost (\\d+), failed (\\d+)");

    @Test
    void shouldCompleteEveryPacketOfAShortSoakAndLoseNone() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Hsa4jMain.run(new String[] {"soak", "--seconds", "2", "--threads", "3", "--seed", "42"},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, text + err.toString(StandardCharsets.UTF_8));
        Matcher m = DONE.matcher(text);
        assertTrue(m.find(), text);
        long packets = Long.parseLong(m.group(1).replace(",", ""));
        assertTrue(packets > 0, text);
        assertEquals(packets, Long.parseLong(m.group(2).replace(",", "")), text);
        assertEquals("0", m.group(3), text);
        assertEquals("0", m.group(4), text);
        assertTrue(text.contains("soak: before: heap") && text.contains("soak: after:  heap"), text);
        assertTrue(text.contains("soak: PASS"), text);
    }

    @Test
    void shouldRefuseAnUnknownOption() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Hsa4jMain.run(new String[] {"soak", "--hours", "1"}, new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(2, status);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("hours is not a recognized option"), err.toString());
    }
}
