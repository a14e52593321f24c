package org.hsa4j.services.aql;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.hsa4j.memory.Svm;
import org.hsa4j.queue.QueueState;
import org.hsa4j.services.Fixture;
import org.hsa4j.services.Kernels;
import org.hsa4j.services.rpc.Opcodes;
import org.hsa4j.services.rpc.RpcStatus;
import org.hsa4j.services.syscall.OpenFlags;
import org.hsa4j.services.syscall.Syscall;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The services through AGENT_DISPATCH packets that kernels enqueue on a queue of the CPU agent. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AgentDispatchTest {
    @TempDir
    Path dir;

    private Fixture f;
    private AgentDispatchClient aql;
    private Svm host;

    @BeforeEach
    void start() {
        f = Fixture.start();
        aql = f.services.agentDispatchClient(64, 16);
        host = f.rt.svm();
    }

    @AfterEach
    void stop() {
        f.close();
    }

    private long svmBytes(byte[] bytes) {
        long a = f.rt.hostMalloc(Math.max(1, bytes.length));
        host.segment(a, bytes.length).copyFrom(MemorySegment.ofArray(bytes));
        return a;
    }

    @Test
    void shouldServeCallsThatWorkItemsEnqueueAsAgentDispatchPackets() {
        long out = f.rt.hostMalloc(8L * 256);
        Kernels.run(f.rt, f.queue, wi -> wi.svm().setLong(Kernels.arg(wi, 0) + 8 * wi.flatGlobalId(),
                aql.call(wi, Opcodes.ECHO, wi.flatGlobalId() * 3)), 256, 64, out);
        for (int i = 0; i < 256; i++) {
            assertEquals(3L * i, host.getLong(out + 8L * i));
        }
        assertEquals(ProcessHandle.current().pid(), runOne(wi -> aql.call(wi, Syscall.GETPID.opcode())));
    }

    private long runOne(java.util.function.ToLongFunction<org.hsa4j.kernel.WorkItem> body) {
        long out = f.rt.hostMalloc(8);
        Kernels.run(f.rt, f.queue, (wi, r) -> wi.svm().setLong(r, body.applyAsLong(wi)), out);
        return host.getLong(out);
    }

    @Test
    void shouldWriteAFileThroughAgentDispatchPackets() throws Exception {
        Path file = dir.resolve("aql.txt");
        byte[] path = file.toString().getBytes(StandardCharsets.UTF_8);
        byte[] text = "via the CPU agent".getBytes(StandardCharsets.UTF_8);
        long pathAddress = svmBytes(path);
        long textAddress = svmBytes(text);
        long written = runOne(wi -> {
            long[] open = {OpenFlags.O_CREAT | OpenFlags.O_WRONLY | OpenFlags.O_TRUNC, 0644};
            RpcStatus s = aql.invoke(wi, Syscall.OPEN.opcode(), open, pathAddress, path.length, 0, 0);
            if (s != RpcStatus.OK || open[0] < 0) {
                return -1000 - open[0];
            }
            long n = aql.call(wi, Syscall.WRITE.opcode(), open[0], textAddress, text.length);
            aql.call(wi, Syscall.CLOSE.opcode(), open[0]);
            return n;
        });
        assertEquals(text.length, written);
        assertArrayEquals(text, Files.readAllBytes(file));
    }

    @Test
    void shouldReturnUnknownOpcodeAndKeepTheCpuQueueWorking() {
        long status = runOne(wi -> aql.invoke(wi, Opcodes.of(0x6666, 1), new long[8], 0, 0, 0, 0).code());
        assertEquals(RpcStatus.UNKNOWN_OPCODE.code(), status);
        assertEquals(QueueState.ACTIVE, aql.queue().state());
        assertEquals(12L, runOne(wi -> aql.call(wi, Opcodes.ECHO, 12)));
    }

    @Test
    void shouldPassPayloadsByPointerAndReportAReplyTooLargeForItsBuffer() {
        byte[] data = "0123456789".getBytes(StandardCharsets.US_ASCII);
        long in = svmBytes(data);
        long outBuf = f.rt.hostMalloc(16);
        long results = f.rt.hostMalloc(32);
        Kernels.run(f.rt, f.queue, (wi, r) -> {
            long[] inOut = new long[9];
            wi.svm().setLong(r, aql.invoke(wi, Opcodes.ECHO_N, inOut, in, data.length, outBuf, 16).code());
            wi.svm().setLong(r + 8, inOut[8]);
            long[] small = new long[9];
            wi.svm().setLong(r + 16, aql.invoke(wi, Opcodes.ECHO_N, small, in, data.length, outBuf, 4).code());
            wi.svm().setLong(r + 24, small[8]);
        }, results);
        assertEquals(RpcStatus.OK.code(), host.getLong(results));
        assertEquals(data.length, host.getLong(results + 8));
        assertArrayEquals(data, host.segment(outBuf, data.length).toArray(ValueLayout.JAVA_BYTE));
        assertEquals(RpcStatus.OVERFLOW.code(), host.getLong(results + 16));
        assertEquals(data.length, host.getLong(results + 24), "the length needed");
    }
}
