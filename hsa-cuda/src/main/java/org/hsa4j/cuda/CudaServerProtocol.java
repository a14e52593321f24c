package org.hsa4j.cuda;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

import org.hsa4j.idle.IdleStrategy;
import org.hsa4j.idle.Idler;

/**
 * The control channel between a {@link CudaAgent} and its device server ({@link CudaDeviceServer},
 * a child JVM): frames on the child's stdin (requests) and stdout (replies).
 *
 * <p><b>Frame layout</b> (big-endian, as {@link DataOutputStream} writes): {@code int length} (bytes
 * after this field), {@code int op}, {@code long id}, {@code int n}, {@code n} longs,
 * {@code int textBytes} + UTF-8 text, {@code int dataBytes} + data. One layout for every op keeps
 * the reader small; what each op puts in {@code longs}, {@code text} and {@code data} is listed at
 * its constant. A request's id is the parent's; the reply carries it back.
 */
final class CudaServerProtocol {
    // ---- requests (parent -> child) ---------------------------------------------------------------
    /** Load a code object: text = its name, data = its image; reply OK with longs[0] = the module. */
    static final int LOAD = 1;
    /** Look a kernel up: longs[0] = module, text = symbol; reply OK with longs[0] = the function. */
    static final int FUNCTION = 2;
    /** Register an SVM range: longs = {address, bytes}; reply OK. */
    static final int MAP = 3;
    /** Unregister an SVM range: longs = {address, bytes}; reply OK. */
    static final int UNMAP = 4;
    /** Make a stream; reply OK with longs[0] = the stream. */
    static final int STREAM = 5;
    /** Destroy a stream (after its work finished): longs[0] = stream; reply OK. */
    static final int DESTROY_STREAM = 6;
    /**
     * Launch a kernel: longs = {stream, function, blocksX, blocksY, blocksZ, threadsX, threadsY,
     * threadsZ, dynamicShared, notify}, data = the kernarg bytes. No reply on success unless notify is
     * 1: then DONE once the kernel (and everything before it on the stream) finished. ERROR if it failed.
     */
    static final int LAUNCH = 7;
    /** Finish: reply OK, then the server exits. */
    static final int SHUTDOWN = 8;

    // ---- replies (child -> parent) ----------------------------------------------------------------
    /** The request succeeded: longs[0] the value, if any. */
    static final int OK = 100;
    /** The request failed: longs[0] = the CUresult (or {@link #NOT_CUDA}), text = what failed. */
    static final int ERROR = 101;
    /**
     * A launch with notify finished: longs = {stream, read, launched, eventDone, replied}, the
     * server's {@code System.nanoTime} when it read the request, when the launch and its event record
     * returned, when it saw the event done and just before it wrote this reply (CLOCK_MONOTONIC on
     * Linux: comparable with the parent's).
     */
    static final int DONE = 102;

    /** The CUresult of an ERROR that no CUDA call returned (a bad request, an I/O failure). */
    static final long NOT_CUDA = -1;
    /** The largest frame either side accepts: a code object of 256 MiB and change. */
    static final int MAX_FRAME = (256 << 20) + 4096;

    private CudaServerProtocol() {
    }

    /** One frame. */
    record Frame(int op, long id, long[] longs, String text, byte[] data) {
        Frame {
            Objects.requireNonNull(longs, "longs");
            text = text == null ? "" : text;
            data = data == null ? new byte[0] : data;
        }

        Frame(int op, long id, long... longs) {
            this(op, id, longs, "", new byte[0]);
        }

        /** longs[i], or 0 past the end. */
        long at(int i) {
            return i < longs.length ? longs[i] : 0;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Frame f && f.op == op && f.id == id && Arrays.equals(f.longs, longs)
                    && f.text.equals(text) && Arrays.equals(f.data, data);
        }

        @Override
        public int hashCode() {
            return Objects.hash(op, id, Arrays.hashCode(longs), text, Arrays.hashCode(data));
        }

        @Override
        public String toString() {
            return "Frame[op=" + op + ", id=" + id + ", longs=" + Arrays.toString(longs) + ", text=" + text + ", data="
                    + data.length + " bytes]";
        }
    }

    /**
     * Looks for bytes on {@code in} through {@code strategy}'s spin and yield phases (never its parks)
     * before the caller blocks in {@link #read}: a reader woken from a blocked pipe read costs several
     * microseconds more than one that finds the bytes while it spins. Returns when bytes are there or
     * the strategy would park.
     */
    static void spinUntilReadable(InputStream in, IdleStrategy strategy) throws IOException {
        Idler idler = null;
        while (in.available() == 0) {
            if (idler == null) {
                idler = strategy.idler();
            }
            if (idler.parksNext()) {
                return;
            }
            idler.idle();
        }
    }

    /** Writes {@code f} and flushes; callers serialise writes to one stream. */
    static void write(DataOutputStream out, Frame f) throws IOException {
        byte[] text = f.text().getBytes(StandardCharsets.UTF_8);
        long length = 4 + 8 + 4 + 8L * f.longs().length + 4 + text.length + 4 + f.data().length;
        if (length > MAX_FRAME) {
            throw new IOException("a frame of " + length + " bytes is larger than the channel's " + MAX_FRAME);
        }
        out.writeInt((int) length);
        out.writeInt(f.op());
        out.writeLong(f.id());
        out.writeInt(f.longs().length);
        for (long v : f.longs()) {
            out.writeLong(v);
        }
        out.writeInt(text.length);
        out.write(text);
        out.writeInt(f.data().length);
        out.write(f.data());
        out.flush();
    }

    /**
     * Reads one frame; null at end of stream before a frame starts.
     *
     * @throws IOException for a frame cut short or one whose fields disagree with its length
     */
    static Frame read(DataInputStream in) throws IOException {
        int length;
        try {
            length = in.readInt();
        } catch (EOFException end) {
            return null;
        }
        if (length < 24 || length > MAX_FRAME) {
            throw new IOException("bad frame length " + length);
        }
        int op = in.readInt();
        long id = in.readLong();
        int n = in.readInt();
        long left = length - 4 - 8 - 4;
        if (n < 0 || 8L * n > left - 8) {
            throw new IOException("bad frame: " + n + " longs in " + length + " bytes");
        }
        long[] longs = new long[n];
        for (int i = 0; i < n; i++) {
            longs[i] = in.readLong();
        }
        left -= 8L * n;
        byte[] text = field(in, left - 4, "text");
        left -= 4 + text.length;
        byte[] data = field(in, left - 4, "data");
        left -= 4 + data.length;
        if (left != 0) {
            throw new IOException("bad frame: " + left + " bytes left over");
        }
        return new Frame(op, id, longs, new String(text, StandardCharsets.UTF_8), data);
    }

    private static byte[] field(DataInputStream in, long room, String what) throws IOException {
        int bytes = in.readInt();
        if (bytes < 0 || bytes > room) {
            throw new IOException("bad frame: " + what + " of " + bytes + " bytes where " + room + " are left");
        }
        byte[] b = new byte[bytes];
        in.readFully(b);
        return b;
    }
}
