package org.hsa4j.services.printf;

import java.util.Objects;

import org.hsa4j.kernel.ServiceCaller;
import org.hsa4j.services.rpc.RpcCall;
import org.hsa4j.services.rpc.RpcClient;
import org.hsa4j.services.rpc.RpcStatus;

/**
 * printf for kernels: the format and arguments are marshalled ({@link PrintfArgs}) and sent with
 * send_n; the host formats them C-style and writes the output whole to its sink.
 */
public final class Printf {
    private final RpcClient client;

    /** printf through {@code client}. */
    public Printf(RpcClient client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    /**
     * printf: waits until the host wrote the output, so the printfs of one work-item appear in
     * program order. Returns the number of bytes written, or -1 on error.
     */
    public int printf(ServiceCaller wi, String format, Object... args) {
        byte[] payload = PrintfArgs.encode(format, args);
        try (RpcCall c = client.open(wi, PrintfService.PRINTF, 1L)) {
            c.sendN(payload);
            return c.finish() == RpcStatus.OK ? (int) c.result(0) : -1;
        }
    }

    /**
     * printf without waiting for the host to print (fire-and-forget): returns once the payload is
     * in the port. Output still never interleaves, but two calls of one work-item may go through
     * different ports and appear in either order.
     */
    public void printfAsync(ServiceCaller wi, String format, Object... args) {
        byte[] payload = PrintfArgs.encode(format, args);
        try (RpcCall c = client.open(wi, PrintfService.PRINTF, 1L)) {
            c.sendN(payload);
        }
    }
}
