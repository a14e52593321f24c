package org.hsa4j.services.printf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.hsa4j.services.Fixture;
import org.hsa4j.services.Kernels;
import org.hsa4j.services.rpc.RpcCall;
import org.hsa4j.services.rpc.RpcStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PrintfTest {
    private Fixture f;
    private final List<String> sink = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() {
        f = Fixture.start();
        f.services.setPrintfSink(sink::add);
    }

    @AfterEach
    void stop() {
        f.close();
    }

    @Test
    void shouldPrintFromAKernelToTheSinkAndReturnTheByteCount() {
        Printf out = f.services.printf();
        long result = f.rt.hostMalloc(8);
        Kernels.run(f.rt, f.queue, wi -> wi.svm().setLong(Kernels.arg(wi, 0),
                out.printf(wi, "work-item %d of %d: %.1f %s\n", wi.flatGlobalId(), wi.gridSize(0), 0.5, "ok")), 1, 1,
                result);
        assertEquals(List.of("work-item 0 of 1: 0.5 ok\n"), sink);
        assertEquals(sink.get(0).getBytes(StandardCharsets.UTF_8).length, f.rt.svm().getLong(result));
    }

    @Test
    void shouldNeverInterleaveTheOutputsOf4096ConcurrentCalls() {
        Printf out = f.services.printf();
        String tail = "-".repeat(300);
        Kernels.run(f.rt, f.queue, wi -> out.printf(wi, "<%d|%s|%d>", wi.flatGlobalId(), tail, wi.flatGlobalId()),
                4096, 64);
        assertEquals(4096, sink.size());
        Set<String> expected = new HashSet<>();
        for (int i = 0; i < 4096; i++) {
            expected.add("<" + i + "|" + tail + "|" + i + ">");
        }
        assertEquals(expected, new HashSet<>(sink));
    }

    @Test
    void shouldDeliverFireAndForgetPrintfs() {
        Printf out = f.services.printf();
        Kernels.run(f.rt, f.queue, wi -> out.printfAsync(wi, "async %d\n", wi.flatGlobalId()), 64, 64);
        while (sink.size() < 64) {
            LockSupport.parkNanos(1_000_000);
        }
        Set<String> expected = new HashSet<>();
        for (int i = 0; i < 64; i++) {
            expected.add("async " + i + "\n");
        }
        assertEquals(expected, new HashSet<>(sink));
    }

    @Test
    void shouldPrintEveryLaneOfABatchedCallWhole() {
        long mask = 0b1111L;
        byte[][] payloads = new byte[64][];
        for (int lane = 0; lane < 4; lane++) {
            payloads[lane] = PrintfArgs.encode("lane %d\n", lane);
        }
        try (RpcCall c = f.services.client().open(f.rt.svm(), PrintfService.PRINTF, mask)) {
            c.sendN(payloads);
            assertEquals(RpcStatus.OK, c.finish());
            assertEquals(7, c.result(3, 0));
        }
        assertEquals(Set.of("lane 0\n", "lane 1\n", "lane 2\n", "lane 3\n"), new HashSet<>(sink));
    }

    @Test
    void shouldAnswerAMalformedPayloadWithMinusOneAndPrintNothing() {
        try (RpcCall c = f.services.client().open(f.rt.svm(), PrintfService.PRINTF, 1L)) {
            c.sendN(new byte[] {1, 2, 3});
            assertEquals(RpcStatus.OK, c.finish());
            assertEquals(-1, c.result(0));
        }
        assertTrue(sink.isEmpty());
    }
}
