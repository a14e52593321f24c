package org.hsa4j.runtime;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import org.hsa4j.agent.Agent;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.signal.Signal;
import org.hsa4j.signal.SignalCondition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RuntimeLifecycleTest {

    private static RuntimeConfig small() {
        return RuntimeConfig.builder().computeUnits(2).build();
    }

    @Test
    void shouldCloseAsAutoCloseable() {
        HsaRuntime escaped;
        try (HsaRuntime rt = HsaRuntime.init(small())) {
            escaped = rt;
            assertFalse(rt.isClosed());
        }
        assertTrue(escaped.isClosed());
    }

    @Test
    void shouldTreatASecondCloseAsHarmless() {
        HsaRuntime rt = HsaRuntime.init(small());
        rt.close();
        assertDoesNotThrow(rt::close);
        assertTrue(rt.isClosed());
    }

    static List<Consumer<HsaRuntime>> callsAfterClose() {
        return List.of(
                HsaRuntime::systemInfo,
                rt -> rt.createSignal(1),
                HsaRuntime::createExecutable,
                rt -> rt.hostMalloc(64),
                rt -> rt.gpuAgent().createQueue(64, QueueType.MULTI, null),
                rt -> rt.cpuAgent().createQueue(64, QueueType.SINGLE, null),
                rt -> rt.setAsyncHandler(null, SignalCondition.EQ, 0, v -> false));
    }

    @ParameterizedTest
    @MethodSource("callsAfterClose")
    void shouldRefuseCallsAfterCloseWithNotInitialized(Consumer<HsaRuntime> call) {
        HsaRuntime rt = HsaRuntime.init(small());
        rt.close();
        HsaException e = assertThrows(HsaException.class, () -> call.accept(rt));
        assertEquals(HsaStatus.NOT_INITIALIZED, e.status());
    }

    @Test
    void shouldRefuseQueueConveniencesAfterCloseWithNotInitialized() {
        HsaRuntime rt = HsaRuntime.init(small());
        Queue q = rt.gpuAgent().createQueue(64, QueueType.MULTI, null);
        rt.close();
        assertEquals(HsaStatus.NOT_INITIALIZED, assertThrows(HsaException.class, q::reserveSlot).status());
        assertEquals(HsaStatus.NOT_INITIALIZED, assertThrows(HsaException.class, () -> q.waitForSpace(0)).status());
        assertEquals(HsaStatus.NOT_INITIALIZED, assertThrows(HsaException.class, q::destroy).status());
    }

    @Test
    void shouldRefuseDestroyingASignalAfterCloseWithNotInitialized() {
        HsaRuntime rt = HsaRuntime.init(small());
        Signal s = rt.createSignal(1);
        rt.close();
        assertEquals(HsaStatus.NOT_INITIALIZED, assertThrows(HsaException.class, s::destroy).status());
    }

    @Test
    void shouldReportSpecVersionOnePointTwo() {
        try (HsaRuntime rt = HsaRuntime.init(small())) {
            SystemInfo info = rt.systemInfo();
            assertEquals(1, info.versionMajor());
            assertEquals(2, info.versionMinor());
        }
    }

    @Test
    void shouldReportNanosecondTimestampFrequency() {
        try (HsaRuntime rt = HsaRuntime.init(small())) {
            assertEquals(1_000_000_000L, rt.systemInfo().timestampFrequency());
        }
    }

    @Test
    void shouldReportIncreasingTimestamps() {
        try (HsaRuntime rt = HsaRuntime.init(small())) {
            long first = rt.systemInfo().timestamp();
            long second = first;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (second <= first && System.nanoTime() < deadline) {
                second = rt.systemInfo().timestamp();
            }
            assertTrue(first >= 0, "timestamps count from the runtime's start");
            assertTrue(second > first, "timestamp did not increase: " + first + " then " + second);
            assertTrue(rt.timestamp() >= second);
        }
    }

    @Test
    void shouldStartOneThreadPerConfiguredComputeUnit() {
        RuntimeConfig config = RuntimeConfig.builder().gpuAgents(2).computeUnits(3).cpuComputeUnits(2).build();
        try (HsaRuntime rt = HsaRuntime.init(config)) {
            assertEquals(2, rt.cpuAgent().computeUnitThreads().length);
            for (Agent gpu : rt.gpuAgents()) {
                Thread[] threads = gpu.computeUnitThreads();
                assertEquals(3, threads.length, gpu.name());
                for (Thread t : threads) {
                    assertTrue(t.isAlive(), t.getName());
                    assertTrue(t.isDaemon(), t.getName() + " must not keep the JVM alive");
                    assertTrue(t.getName().startsWith("hsa4j-" + gpu.name()), t.getName());
                }
            }
        }
    }

    @Test
    void shouldLeaveNoHsa4jThreadAliveAfterClose() {
        Set<Thread> before = hsa4jThreads();
        HsaRuntime rt = HsaRuntime.init(RuntimeConfig.builder().gpuAgents(2).computeUnits(2).build());
        // start the async handler thread too
        rt.setAsyncHandler(rt.createSignal(1), SignalCondition.EQ, 0, v -> false);
        Set<Thread> started = hsa4jThreads();
        started.removeAll(before);
        assertTrue(started.size() >= 2 + 2 + 1 + 1, "threads started: " + started);
        rt.close();
        List<String> alive = started.stream().filter(Thread::isAlive).map(Thread::getName).toList();
        assertEquals(List.of(), alive);
        assertTrue(rt.agents().stream().flatMap(a -> Arrays.stream(a.computeUnitThreads()))
                .noneMatch(Thread::isAlive));
    }

    private static Set<Thread> hsa4jThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("hsa4j-"))
                .collect(Collectors.toSet());
    }
}
