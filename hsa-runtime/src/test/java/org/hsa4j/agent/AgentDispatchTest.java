package org.hsa4j.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.queue.Await;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.hsa4j.queue.Submit;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.signal.Signal;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Agent dispatch packets on the CPU agent: handlers, their arguments and their failures. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AgentDispatchTest {
    private HsaRuntime rt;
    private final List<HsaException> errors = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build());
    }

    @AfterEach
    void stop() {
        rt.close();
    }

    private Queue cpuQueue() {
        return rt.cpuAgent().createQueue(16, QueueType.MULTI, (e, q) -> errors.add(e));
    }

    @Test
    void shouldRunTheRegisteredHandlerWithItsArgumentsAndReturnAddress() {
        AtomicReference<AgentDispatchRequest> seen = new AtomicReference<>();
        rt.cpuAgent().registerAgentDispatchHandler(0x1234, r -> {
            seen.set(r);
            r.svm().setLong(r.returnAddress(), r.arg(0) + r.arg(1) * r.arg(2) - r.arg(3));
        });
        Queue q = cpuQueue();
        long result = rt.hostMalloc(8);
        Signal done = rt.createSignal(1);
        long id = Submit.agentDispatch(q, 0x1234, result, done, 5, 6, 7, 2);
        Await.completion(done);

        assertEquals(5 + 6 * 7 - 2, rt.svm().getLong(result));
        AgentDispatchRequest r = seen.get();
        assertEquals(0x1234, r.type());
        assertEquals(result, r.returnAddress());
        assertEquals(List.of(5L, 6L, 7L, 2L), List.of(r.arg0(), r.arg1(), r.arg2(), r.arg3()));
        assertEquals(id, r.packetId());
        assertEquals(List.of(), errors);
    }

    @Test
    void shouldRunTheHandlerOnACpuComputeUnit() {
        AtomicReference<String> thread = new AtomicReference<>();
        rt.cpuAgent().registerAgentDispatchHandler(1, r -> thread.set(Thread.currentThread().getName()));
        Signal done = rt.createSignal(1);
        Submit.agentDispatch(cpuQueue(), 1, 0, done);
        Await.completion(done);
        assertTrue(thread.get().startsWith("hsa4j-cpu0-cu"), thread.get());
    }

    @Test
    void shouldRunHandlersOfSeveralTypesInOrder() {
        List<Integer> order = new CopyOnWriteArrayList<>();
        rt.cpuAgent().registerAgentDispatchHandler(1, r -> order.add(1));
        rt.cpuAgent().registerAgentDispatchHandler(2, r -> order.add(2));
        Queue q = cpuQueue();
        Signal done = rt.createSignal(4);
        Submit.agentDispatch(q, 1, 0, done);
        Submit.agentDispatch(q, 2, 0, done);
        Submit.agentDispatch(q, 2, 0, done);
        Submit.agentDispatch(q, 1, 0, done);
        Await.completion(done);
        assertEquals(List.of(1, 2, 2, 1), order);
    }

    @Test
    void shouldReportAnUnknownDispatchTypeAsInvalidPacketFormat() {
        Queue q = cpuQueue();
        Signal done = rt.createSignal(1);
        Submit.agentDispatch(q, 999, 0, done);
        HsaException e = assertThrows(HsaException.class, () -> Await.completion(done));
        assertEquals(HsaStatus.INVALID_PACKET_FORMAT, e.status());
        assertEquals(1, errors.size());
        assertEquals(HsaStatus.INVALID_PACKET_FORMAT, errors.get(0).status());
        assertTrue(errors.get(0).getMessage().contains("999"), errors.get(0).getMessage());
    }

    @Test
    void shouldReportAThrowingHandlerAsException() {
        rt.cpuAgent().registerAgentDispatchHandler(3, r -> {
            throw new IllegalArgumentException("bad request");
        });
        Signal done = rt.createSignal(1);
        Submit.agentDispatch(cpuQueue(), 3, 0, done);
        HsaException e = assertThrows(HsaException.class, () -> Await.completion(done));
        assertEquals(HsaStatus.EXCEPTION, e.status());
        assertTrue(e.getMessage().contains("bad request"), e.getMessage());
    }

    @Test
    void shouldStopServingATypeOnceItsHandlerIsUnregistered() {
        rt.cpuAgent().registerAgentDispatchHandler(4, r -> { });
        rt.cpuAgent().unregisterAgentDispatchHandler(4);
        Signal done = rt.createSignal(1);
        Submit.agentDispatch(cpuQueue(), 4, 0, done);
        assertEquals(HsaStatus.INVALID_PACKET_FORMAT,
                assertThrows(HsaException.class, () -> Await.completion(done)).status());
    }

    @Test
    void shouldRefuseAgentDispatchPacketsOnAGpuQueue() {
        Queue q = rt.gpuAgent().createQueue(16, QueueType.MULTI, (e, queue) -> errors.add(e));
        Signal done = rt.createSignal(1);
        Submit.agentDispatch(q, 1, 0, done);
        assertEquals(HsaStatus.INVALID_PACKET_FORMAT,
                assertThrows(HsaException.class, () -> Await.completion(done)).status());
    }

    @Test
    void shouldRefuseKernelDispatchPacketsOnACpuQueue() {
        long kernel = rt.createExecutable().define("k", KernelDescriptor.EMPTY, wi -> { }).freeze()
                .symbol("k").kernelObject();
        Signal done = rt.createSignal(1);
        Submit.kernel(cpuQueue(), kernel).completion(done).submit();
        assertEquals(HsaStatus.INVALID_PACKET_FORMAT,
                assertThrows(HsaException.class, () -> Await.completion(done)).status());
    }
}
