package org.hsa4j.services.printf;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The wire format of one printf call, sent with send_n: the format string and the arguments,
 * each tagged with its type, little-endian.
 *
 * <pre>
 * u32 format length | format bytes (UTF-8) | u32 argument count | arguments...
 * argument: u8 tag | payload
 *   'I' i64 integer (also char as its code, boolean as 0/1)
 *   'D' f64 floating point
 *   'S' u32 length | UTF-8 bytes
 * </pre>
 */
public final class PrintfArgs {
    /** Tag of an integer argument. */
    public static final byte INTEGER = 'I';
    /** Tag of a floating-point argument. */
    public static final byte DOUBLE = 'D';
    /** Tag of a string argument. */
    public static final byte STRING = 'S';
    /** Most arguments one call carries. */
    public static final int MAX_ARGS = 256;

    private PrintfArgs() {
    }

    /** Encodes {@code format} and {@code args} (numbers, characters, booleans, anything else as its string). */
    public static byte[] encode(String format, Object... args) {
        if (args.length > MAX_ARGS) {
            throw new IllegalArgumentException("printf takes at most " + MAX_ARGS + " arguments");
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(64 + format.length());
        writeString(out, format);
        writeInt(out, args.length);
        for (Object a : args) {
            if (a instanceof Double || a instanceof Float) {
                out.write(DOUBLE);
                writeLong(out, Double.doubleToRawLongBits(((Number) a).doubleValue()));
            } else if (a instanceof Number n) {
                out.write(INTEGER);
                writeLong(out, n.longValue());
            } else if (a instanceof Character c) {
                out.write(INTEGER);
                writeLong(out, c);
            } else if (a instanceof Boolean b) {
                out.write(INTEGER);
                writeLong(out, b ? 1 : 0);
            } else {
                out.write(STRING);
                writeString(out, String.valueOf(a));
            }
        }
        return out.toByteArray();
    }

    private static void writeString(ByteArrayOutputStream out, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        writeInt(out, b.length);
        out.writeBytes(b);
    }

    private static void writeInt(ByteArrayOutputStream out, int v) {
        for (int i = 0; i < 4; i++) {
            out.write(v >>> (8 * i));
        }
    }

    private static void writeLong(ByteArrayOutputStream out, long v) {
        for (int i = 0; i < 8; i++) {
            out.write((int) (v >>> (8 * i)));
        }
    }

    /**
     * A decoded call: the format and the arguments as Long, Double or String.
     *
     * @param format the format string
     * @param args   the arguments
     */
    public record Decoded(String format, List<Object> args) {
    }

    /**
     * Decodes a payload.
     *
     * @throws IllegalArgumentException when the payload is malformed
     */
    public static Decoded decode(byte[] payload) {
        ByteBuffer in = ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN);
        try {
            String format = readString(in);
            int count = in.getInt();
            if (count < 0 || count > MAX_ARGS) {
                throw new IllegalArgumentException("argument count " + count);
            }
            List<Object> args = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                byte tag = in.get();
                switch (tag) {
                    case INTEGER -> args.add(in.getLong());
                    case DOUBLE -> args.add(Double.longBitsToDouble(in.getLong()));
                    case STRING -> args.add(readString(in));
                    default -> throw new IllegalArgumentException("unknown argument tag " + tag);
                }
            }
            return new Decoded(format, args);
        } catch (java.nio.BufferUnderflowException e) {
            throw new IllegalArgumentException("truncated printf payload", e);
        }
    }

    private static String readString(ByteBuffer in) {
        int len = in.getInt();
        if (len < 0 || len > in.remaining()) {
            throw new IllegalArgumentException("string length " + len);
        }
        byte[] b = new byte[len];
        in.get(b);
        return new String(b, StandardCharsets.UTF_8);
    }
}
