package org.hsa4j.services.printf;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class CFormatTest {

    private static String c(String format, Object... args) {
        PrintfArgs.Decoded d = PrintfArgs.decode(PrintfArgs.encode(format, args));
        return CFormat.format(d.format(), d.args());
    }

    @Test
    void shouldFormatIntegersWithFlagsWidthAndPrecision() {
        assertEquals("42|   42|42   |00042|+42| 42|  042", c("%d|%5d|%-5d|%05d|%+d|% d|%5.3d", 42, 42, 42, 42, 42, 42, 42));
        assertEquals("-7|-0007", c("%i|%05d", -7, -7));
        assertEquals("", c("%.0d", 0));
    }

    @Test
    void shouldFormatUnsignedOctalAndHex() {
        assertEquals("ff|FF|0xff|0XFF|17|017", c("%x|%X|%#x|%#X|%o|%#o", 255, 255, 255, 255, 15, 15));
        assertEquals("18446744073709551615|ffffffffffffffff", c("%u|%lx", -1L, -1L));
        assertEquals("255|65535|-1", c("%hhu|%hu|%hhd", -1, -1, 255));
        assertEquals("0x00ff", c("%#06x", 255));
    }

    @Test
    void shouldFormatFloatingPoint() {
        assertEquals("3.14|3.141593|  3.1|3.142E+00|INF", c("%.2f|%f|%5.1f|%.3E|%F", Math.PI, Math.PI, Math.PI, Math.PI,
                Double.POSITIVE_INFINITY));
        assertEquals("2.50000", c("%.5f", 2.5f));
    }

    @Test
    void shouldFormatCharactersStringsAndPointers() {
        assertEquals("A|hello|  hel|hi   |0x1f", c("%c|%s|%5.3s|%-5s|%p", 'A', "hello", "hello", "hi", 31));
        assertEquals("true 7", c("%s %d", "true", true ? 7 : 0));
    }

    @Test
    void shouldTakeWidthAndPrecisionFromArguments() {
        assertEquals("   ab|ab   |1.50", c("%*s|%-*s|%.*f", 5, "ab", 5, "ab", 2, 1.5));
    }

    @Test
    void shouldCopyWhatItCannotFormatInsteadOfFailing() {
        assertEquals("100% sure, missing %d, %q", c("100%% sure, missing %d, %q"));
        assertEquals("n= ok", c("n=%n ok", 5));
        assertEquals("%d", c("%d", "text"));
    }

    @Test
    void shouldDecodeWhatItEncoded() {
        PrintfArgs.Decoded d = PrintfArgs.decode(PrintfArgs.encode("f %s", 1, 2.5, "x", 'c', false, 7L));
        assertEquals("f %s", d.format());
        assertEquals(Arrays.asList(1L, 2.5, "x", (long) 'c', 0L, 7L), d.args());
    }
}
