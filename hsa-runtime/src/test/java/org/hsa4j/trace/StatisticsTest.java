package org.hsa4j.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.kernel.WorkItem;
import org.hsa4j.queue.Await;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.queue.Submit;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.runtime.SystemReport;
import org.hsa4j.signal.Signal;
import org.hsa4j.status.HsaException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Per-queue ({@code Queue.statistics()}) and per-kernel ({@code HsaRuntime.kernelStatistics()}) statistics. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StatisticsTest {
    private HsaRuntime rt;

    @AfterEach
    void stop() {
        if (rt != null) {
            rt.close();
        }
    }

    private long kernel(String name, org.hsa4j.kernel.Kernel body) {
        return rt.createExecutable().define(name, KernelDescriptor.withKernarg(0), body).freeze().symbol(name)
                .kernelObject();
    }

    private static void nothing(WorkItem wi) {
    }

    @Test
    void shouldCountEachQueuesDispatchesBarriersAndFailures() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(2).statistics(true).build());
        Queue first = rt.gpuAgent().createQueue(64, QueueType.MULTI, (e, q) -> { });
        Queue second = rt.gpuAgent().createQueue(64, QueueType.MULTI, null);
        long a = kernel("a", StatisticsTest::nothing);
        long failing = kernel("failing", wi -> {
            throw new IllegalStateException("on purpose");
        });
        for (int i = 0; i < 3; i++) {
            first.dispatch(a, 128, 64).join();
        }
        Signal done = rt.createSignal(1);
        Submit.barrierAnd(first, done);
        Await.completion(done);
        // a failing kernel puts its queue in the error state, so it comes last
        assertThrows(HsaException.class, () -> first.dispatch(failing, 1, 1).join());
        second.dispatch(a, 1, 1).join();

        QueueStatistics s = first.statistics();
        assertEquals(first.id(), s.queueId());
        assertEquals("gpu0", s.agent());
        assertEquals(4, s.dispatches());
        assertEquals(1, s.failures());
        assertEquals(1, s.barriers());
        assertTrue(s.minNanos() > 0 && s.minNanos() <= s.maxNanos() && s.maxNanos() <= s.totalNanos(), s.toString());
        assertEquals(1, second.statistics().dispatches());
        assertEquals(List.of(first.id(), second.id()),
                rt.queueStatistics().stream().map(QueueStatistics::queueId).toList());
    }

    @Test
    void shouldCountEachKernelsDispatchesWorkgroupsAndTimesOverAllQueues() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(2).statistics(true).build());
        Queue first = rt.gpuAgent().createQueue(64, QueueType.MULTI, null);
        Queue second = rt.gpuAgent().createQueue(64, QueueType.MULTI, null);
        long a = kernel("a", StatisticsTest::nothing);
        long b = kernel("b", StatisticsTest::nothing);
        first.dispatch(a, 256, 64).join();
        second.dispatch(a, 64, 64).join();
        second.dispatch(b, 1, 1).join();

        List<KernelStatistics> kernels = rt.kernelStatistics();
        assertEquals(List.of("a", "b"), kernels.stream().map(KernelStatistics::kernel).toList());
        KernelStatistics ka = kernels.getFirst();
        assertEquals(2, ka.dispatches());
        assertEquals(5, ka.workgroups(), "4 workgroups, then 1");
        assertEquals(0, ka.failures());
        assertTrue(ka.minNanos() > 0 && ka.minNanos() <= ka.maxNanos()
                && ka.totalNanos() == ka.meanNanos() * 2 + ka.totalNanos() % 2, ka.toString());
        assertEquals(1, kernels.get(1).dispatches());
    }

    @Test
    void shouldListTheStatisticsInTheSystemReport() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).statistics(true).build());
        Queue q = rt.gpuAgent().createQueue(64, QueueType.MULTI, null);
        q.dispatch(kernel("reported", StatisticsTest::nothing), 1, 1).join();
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        SystemReport.write(rt, new PrintStream(text, true, StandardCharsets.UTF_8));
        String report = text.toString(StandardCharsets.UTF_8);
        assertTrue(report.contains("\nStatistics\n"), report);
        assertTrue(report.contains("Queue " + q.id() + " (gpu0):"), report);
        assertTrue(report.contains("Kernel reported:"), report);
        assertTrue(report.contains("Trace file:"), report);
    }

    @Test
    void shouldLeaveTheStatisticsOutOfTheSystemReportUnlessKept() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build());
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        SystemReport.write(rt, new PrintStream(text, true, StandardCharsets.UTF_8));
        assertTrue(!text.toString(StandardCharsets.UTF_8).contains("Statistics"));
    }

    @Test
    void shouldKeepNoStatisticsUnlessAskedTo() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build());
        Queue q = rt.gpuAgent().createQueue(64, QueueType.MULTI, null);
        q.dispatch(kernel("a", StatisticsTest::nothing), 1, 1).join();
        assertEquals(QueueStatistics.none(q.id()), q.statistics());
        assertEquals(List.of(), rt.kernelStatistics());
        assertEquals(List.of(), rt.queueStatistics());
        assertTrue(!rt.tracer().recording());
    }
}
