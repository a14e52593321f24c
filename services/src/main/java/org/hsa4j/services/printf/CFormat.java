package org.hsa4j.services.printf;

import java.util.IllegalFormatException;
import java.util.List;
import java.util.Locale;

/**
 * Formats a C printf format string with decoded arguments. Conversions {@code d i u o x X e E f F
 * g G a A c s p %} with flags {@code - + space # 0}, width and precision (also {@code *}) behave
 * as in C; length modifiers ({@code hh h l ll j z t L}) are accepted, and {@code hh}/{@code h}
 * truncate to 8/16 bits, while integers are otherwise taken at their full 64 bits (arguments come
 * from Java, where a long is a long). {@code %n} is ignored. A conversion without an argument, or
 * one Java cannot render, is copied to the output as written instead of failing the call.
 */
public final class CFormat {
    private CFormat() {
    }

    /** The text {@code format} produces with {@code args} (Long, Double or String). */
    public static String format(String format, List<Object> args) {
        StringBuilder out = new StringBuilder(format.length() + 16 * args.size());
        int next = 0;
        int i = 0;
        int n = format.length();
        while (i < n) {
            char ch = format.charAt(i);
            if (ch != '%') {
                out.append(ch);
                i++;
                continue;
            }
            int start = i++;
            StringBuilder flags = new StringBuilder();
            while (i < n && "-+ #0".indexOf(format.charAt(i)) >= 0) {
                flags.append(format.charAt(i++));
            }
            Integer width = null;
            if (i < n && format.charAt(i) == '*') {
                i++;
                if (next < args.size() && args.get(next) instanceof Long w) {
                    next++;
                    if (w < 0) {
                        flags.append('-');
                    }
                    width = (int) Math.min(Math.abs(w), 1 << 16);
                }
            } else {
                int w = 0;
                boolean any = false;
                while (i < n && Character.isDigit(format.charAt(i))) {
                    w = Math.min(w * 10 + format.charAt(i++) - '0', 1 << 16);
                    any = true;
                }
                width = any ? w : null;
            }
            Integer precision = null;
            if (i < n && format.charAt(i) == '.') {
                i++;
                if (i < n && format.charAt(i) == '*') {
                    i++;
                    if (next < args.size() && args.get(next) instanceof Long p) {
                        next++;
                        precision = p < 0 ? null : (int) Math.min(p, 1 << 16);
                    }
                } else {
                    int p = 0;
                    while (i < n && Character.isDigit(format.charAt(i))) {
                        p = Math.min(p * 10 + format.charAt(i++) - '0', 1 << 16);
                    }
                    precision = p;
                }
            }
            int bits = 64;
            while (i < n && "hljztLq".indexOf(format.charAt(i)) >= 0) {
                char m = format.charAt(i++);
                if (m == 'h') {
                    bits = bits == 16 ? 8 : 16;
                }
            }
            if (i >= n) {
                out.append(format, start, n);
                break;
            }
            char conv = format.charAt(i++);
            if (conv == '%') {
                out.append('%');
                continue;
            }
            if (conv == 'n') {
                continue;
            }
            if ("diuoxXeEfFgGaAcsp".indexOf(conv) < 0 || next >= args.size()) {
                out.append(format, start, i);
                continue;
            }
            Object arg = args.get(next++);
            try {
                out.append(convert(conv, flags.toString(), width, precision, bits, arg));
            } catch (IllegalFormatException | ArithmeticException e) {
                out.append(format, start, i);
            }
        }
        return out.toString();
    }

    private static String convert(char conv, String flags, Integer width, Integer precision, int bits, Object arg) {
        String w = width == null ? "" : Integer.toString(width);
        if ("eEfFgGaA".indexOf(conv) >= 0) {
            double v = asDouble(arg);
            if (Double.isNaN(v) || Double.isInfinite(v)) {
                String sign = v < 0 ? "-" : flags.indexOf('+') >= 0 ? "+" : flags.indexOf(' ') >= 0 ? " " : "";
                String word = Double.isNaN(v) ? "nan" : "inf";
                return pad(flags, width, sign + (Character.isUpperCase(conv) ? word.toUpperCase(Locale.ROOT) : word));
            }
        }
        return switch (conv) {
            case 'd', 'i' -> integer(flags, width, precision, "", Long.toString(signed(asLong(arg), bits)));
            case 'u' -> integer(flags.replace("+", "").replace(" ", ""), width, precision, "",
                    Long.toUnsignedString(unsigned(asLong(arg), bits)));
            case 'o' -> unsignedInteger(flags, width, precision, "0", Long.toOctalString(unsigned(asLong(arg), bits)));
            case 'x' -> unsignedInteger(flags, width, precision, "0x", Long.toHexString(unsigned(asLong(arg), bits)));
            case 'X' -> unsignedInteger(flags, width, precision, "0X",
                    Long.toHexString(unsigned(asLong(arg), bits)).toUpperCase(Locale.ROOT));
            case 'p' -> pad(flags, width, "0x" + Long.toHexString(asLong(arg)));
            case 'c' -> pad(flags, width, String.valueOf((char) asLong(arg)));
            case 's' -> {
                String s = arg instanceof String str ? str : String.valueOf(arg);
                yield pad(flags, width, precision != null && precision < s.length() ? s.substring(0, precision) : s);
            }
            case 'F' -> String.format(Locale.ROOT, "%" + flags + w + (precision == null ? "" : "." + precision) + "f",
                    asDouble(arg)).toUpperCase(Locale.ROOT);
            case 'a', 'A' -> {
                String s = String.format(Locale.ROOT, "%" + flags.replace("0", "") + w
                        + (precision == null ? "" : "." + precision) + "a", asDouble(arg));
                yield conv == 'A' ? s.toUpperCase(Locale.ROOT) : s;
            }
            default -> String.format(Locale.ROOT, "%" + flags.replace("#", "") + w
                    + (precision == null ? "" : "." + precision) + conv, asDouble(arg));
        };
    }

    private static long asLong(Object arg) {
        if (arg instanceof Long l) {
            return l;
        }
        if (arg instanceof Double d) {
            return d.longValue();
        }
        throw new ArithmeticException("not a number: " + arg);
    }

    private static double asDouble(Object arg) {
        if (arg instanceof Double d) {
            return d;
        }
        if (arg instanceof Long l) {
            return l;
        }
        throw new ArithmeticException("not a number: " + arg);
    }

    private static long signed(long v, int bits) {
        return bits == 8 ? (byte) v : bits == 16 ? (short) v : v;
    }

    private static long unsigned(long v, int bits) {
        return bits == 8 ? v & 0xFF : bits == 16 ? v & 0xFFFF : v;
    }

    /** An octal or hex integer: the {@code #} flag adds {@code prefix} to a non-zero value; no sign flags. */
    private static String unsignedInteger(String flags, Integer width, Integer precision, String prefix, String digits) {
        String plain = flags.replace("+", "").replace(" ", "");
        return integer(plain, width, precision, flags.indexOf('#') >= 0 && !digits.equals("0") ? prefix : "", digits);
    }

    /** An integer with C's precision (minimum digits), sign flags, zero padding and width. */
    private static String integer(String flags, Integer width, Integer precision, String prefix, String text) {
        String digits = text;
        String sign = "";
        if (digits.startsWith("-")) {
            sign = "-";
            digits = digits.substring(1);
        } else if (flags.indexOf('+') >= 0) {
            sign = "+";
        } else if (flags.indexOf(' ') >= 0) {
            sign = " ";
        }
        if (precision != null) {
            if (precision == 0 && digits.equals("0")) {
                digits = "";
            }
            if (digits.length() < precision) {
                digits = "0".repeat(precision - digits.length()) + digits;
            }
        }
        String body = sign + prefix + digits;
        if (width != null && body.length() < width) {
            if (flags.indexOf('-') >= 0) {
                return body + " ".repeat(width - body.length());
            }
            if (flags.indexOf('0') >= 0 && precision == null) {
                return sign + prefix + "0".repeat(width - body.length()) + digits;
            }
            return " ".repeat(width - body.length()) + body;
        }
        return body;
    }

    private static String pad(String flags, Integer width, String s) {
        if (width == null || s.length() >= width) {
            return s;
        }
        String fill = " ".repeat(width - s.length());
        return flags.indexOf('-') >= 0 ? s + fill : fill + s;
    }
}
