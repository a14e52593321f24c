package org.hsa4j.services.printf;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

import org.hsa4j.services.rpc.OpcodeRegistry;
import org.hsa4j.services.rpc.Opcodes;
import org.hsa4j.services.rpc.ServerCall;
import org.hsa4j.services.rpc.ServiceMode;

/**
 * The host side of printf: receives each lane's format and arguments with recv_n, formats them
 * as C would ({@link CFormat}), and writes each lane's whole output with one call of the sink,
 * under a lock, so the output of one printf call is never interleaved with another's. Result 0 of
 * a lane is the number of bytes written (UTF-8), or -1 when its payload was malformed.
 */
public final class PrintfService {
    /** Owner name of the printf namespace. */
    public static final String OWNER = "hsa4j-printf";
    /** The printf opcode. */
    public static final int PRINTF = Opcodes.of(Opcodes.PRINTF_NAMESPACE, 0);

    private final Object lock = new Object();
    private volatile PrintfSink sink;

    /** A printf service writing to {@code sink}. */
    public PrintfService(PrintfSink sink) {
        this.sink = Objects.requireNonNull(sink, "sink");
    }

    /** Claims the printf namespace and registers printf (on the handler threads: sinks may block). */
    public void register(OpcodeRegistry registry) {
        registry.claimNamespace(Opcodes.PRINTF_NAMESPACE, OWNER);
        registry.register(OWNER, PRINTF, ServiceMode.HANDLER, this::serve);
    }

    /** The current sink. */
    public PrintfSink sink() {
        return sink;
    }

    /** Sends later output to {@code sink}. */
    public void setSink(PrintfSink sink) {
        this.sink = Objects.requireNonNull(sink, "sink");
    }

    private void serve(ServerCall call) {
        byte[][] payloads = call.recvN();
        for (long m = call.laneMask(); m != 0; m &= m - 1) {
            int lane = Long.numberOfTrailingZeros(m);
            String text;
            try {
                PrintfArgs.Decoded d = PrintfArgs.decode(payloads[lane]);
                text = CFormat.format(d.format(), d.args());
            } catch (IllegalArgumentException e) {
                call.result(lane, 0, -1);
                continue;
            }
            synchronized (lock) {
                sink.write(text);
            }
            call.result(lane, 0, text.getBytes(StandardCharsets.UTF_8).length);
        }
    }
}
