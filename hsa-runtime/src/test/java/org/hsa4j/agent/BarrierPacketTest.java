package org.hsa4j.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.packet.PacketType;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Barrier-AND and barrier-OR packets: dependency semantics and what they block. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BarrierPacketTest {
    private HsaRuntime rt;
    private final AtomicReference<HsaException> queueError = new AtomicReference<>();

    @BeforeEach
    void start() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(2).build());
    }

    @AfterEach
    void stop() {
        rt.close();
    }

    private Agent agent(int index) {
        return rt.agents().get(index);
    }

    private Queue queue(Agent agent) {
        return agent.createQueue(16, QueueType.MULTI, (e, q) -> queueError.set(e));
    }

    /** Asserts that {@code signal} stays at 1 through a full scan of {@code agent}'s queues. */
    private static void assertStillPending(Agent agent, Signal signal) {
        Scans.awaitFullScan(agent);
        assertEquals(1, signal.loadScacquire(), "the barrier completed too early");
    }

    @ParameterizedTest(name = "agent {0}")
    @ValueSource(ints = {0, 1})
    void shouldCompleteAndOnceEveryDependencyWasObservedAtZeroEvenAtDifferentTimes(int agentIndex) {
        Agent agent = agent(agentIndex);
        Queue q = queue(agent);
        Signal a = rt.createSignal(1);
        Signal b = rt.createSignal(1);
        Signal done = rt.createSignal(1);
        Submit.barrierAnd(q, done, a.handle(), b.handle());
        assertStillPending(agent, done);

        a.storeScrelease(0);
        assertStillPending(agent, done);
        a.storeScrelease(1);
        b.storeScrelease(0);
        Await.completion(done);
        assertEquals(1, a.loadScacquire());
    }

    @Test
    void shouldCompleteAndWithOnlyZeroHandlesAtOnce() {
        Queue q = queue(agent(1));
        Signal done = rt.createSignal(1);
        Submit.barrierAnd(q, done, 0, 0, 0, 0, 0);
        Await.completion(done);
    }

    @Test
    void shouldTreatZeroHandlesOfAnAndAsSatisfied() {
        Agent agent = agent(1);
        Queue q = queue(agent);
        Signal dep = rt.createSignal(1);
        Signal done = rt.createSignal(1);
        Submit.barrierAnd(q, done, 0, dep.handle(), 0, 0, 0);
        assertStillPending(agent, done);
        dep.storeScrelease(0);
        Await.completion(done);
    }

    @ParameterizedTest(name = "agent {0}")
    @ValueSource(ints = {0, 1})
    void shouldCompleteOrWhenItsOnlyRealDependencyReachesZero(int agentIndex) {
        Agent agent = agent(agentIndex);
        Queue q = queue(agent);
        Signal dep = rt.createSignal(1);
        Signal done = rt.createSignal(1);
        Submit.barrierOr(q, done, 0, 0, dep.handle(), 0, 0);
        assertStillPending(agent, done);
        dep.storeScrelease(0);
        Await.completion(done);
    }

    @Test
    void shouldCompleteOrWhenAnyOfSeveralDependenciesReachesZero() {
        Agent agent = agent(1);
        Queue q = queue(agent);
        Signal[] deps = {rt.createSignal(1), rt.createSignal(1), rt.createSignal(1)};
        Signal done = rt.createSignal(1);
        Submit.barrierOr(q, done, deps[0].handle(), deps[1].handle(), deps[2].handle());
        assertStillPending(agent, done);
        deps[1].subtractScrelease(1);
        Await.completion(done);
    }

    @Test
    void shouldNeverCompleteOrWithOnlyZeroHandles() {
        Agent agent = agent(1);
        Queue q = queue(agent);
        Signal done = rt.createSignal(1);
        Submit.barrierOr(q, done, 0, 0, 0, 0, 0);
        assertStillPending(agent, done);
        assertStillPending(agent, done);
        q.inactivate();
        assertThrows(HsaException.class, () -> Await.completion(done));
    }

    @Test
    void shouldBlockLaterPacketsOfItsQueueButNotOtherQueues() {
        Agent gpu = agent(1);
        AtomicBoolean blockedRan = new AtomicBoolean();
        AtomicBoolean otherRan = new AtomicBoolean();
        var exe = rt.createExecutable()
                .define("blocked", KernelDescriptor.EMPTY, wi -> blockedRan.set(true))
                .define("other", KernelDescriptor.EMPTY, wi -> otherRan.set(true)).freeze();
        Queue blocked = queue(gpu);
        Queue other = queue(gpu);
        Signal gate = rt.createSignal(1);
        Signal barrierDone = rt.createSignal(1);
        Signal blockedDone = rt.createSignal(1);
        Signal otherDone = rt.createSignal(1);
        long barrierId = Submit.barrierAnd(blocked, barrierDone, gate.handle());
        Submit.kernel(blocked, exe.symbol("blocked").kernelObject()).completion(blockedDone).submit();
        Submit.kernel(other, exe.symbol("other").kernelObject()).completion(otherDone).submit();

        Await.completion(otherDone);
        assertTrue(otherRan.get());
        Scans.awaitFullScan(gpu);
        assertFalse(blockedRan.get(), "a packet behind a pending barrier ran");
        assertEquals(barrierId, blocked.loadReadIndexScacquire());

        gate.storeScrelease(0);
        Await.completion(barrierDone);
        Await.completion(blockedDone);
        assertTrue(blockedRan.get());
    }

    @Test
    void shouldCompleteABarrierWithoutACompletionSignal() {
        Queue q = queue(agent(1));
        long id = Submit.barrierAnd(q, null);
        Signal after = rt.createSignal(1);
        Submit.barrierAnd(q, after);
        Await.completion(after);
        assertEquals(PacketType.INVALID.code(), Submit.headerType(q, id));
    }

    @Test
    void shouldRejectABarrierWhoseDependencyIsNotASignal() {
        Queue q = queue(agent(1));
        Signal done = rt.createSignal(1);
        Submit.barrierAnd(q, done, rt.hostMalloc(64));
        HsaException e = assertThrows(HsaException.class, () -> Await.completion(done));
        assertEquals(HsaStatus.INVALID_SIGNAL, e.status());
        assertEquals(HsaStatus.INVALID_SIGNAL, queueError.get().status());
    }

    @Test
    void shouldRejectABarrierWhoseDependencyFailed() {
        Queue q = queue(agent(1));
        Signal dep = rt.createSignal(1);
        dep.fail(new HsaException(HsaStatus.EXCEPTION, "a kernel failed"));
        Signal done = rt.createSignal(1);
        Submit.barrierAnd(q, done, dep.handle());
        HsaException e = assertThrows(HsaException.class, () -> Await.completion(done));
        assertEquals(HsaStatus.EXCEPTION, e.status());
    }

    @Test
    void shouldRejectABarrierWhoseDependencyIsDestroyedWhileItWaits() {
        Agent gpu = agent(1);
        Queue q = queue(gpu);
        Signal dep = rt.createSignal(1);
        Signal done = rt.createSignal(1);
        Submit.barrierAnd(q, done, dep.handle());
        assertStillPending(gpu, done);
        dep.destroy();
        HsaException e = assertThrows(HsaException.class, () -> Await.completion(done));
        assertEquals(HsaStatus.INVALID_SIGNAL, e.status());
        Queue other = queue(gpu);
        Signal otherDone = rt.createSignal(1);
        Submit.barrierAnd(other, otherDone);
        Await.completion(otherDone);
    }

    @Test
    void shouldRunBarrierPacketsWithTheBarrierBitSet() {
        Queue q = queue(agent(1));
        Signal first = rt.createSignal(1);
        Signal second = rt.createSignal(1);
        Submit.barrier(q, PacketType.BARRIER_AND, true, first);
        Submit.barrier(q, PacketType.BARRIER_OR, true, second, first.handle());
        Await.completion(second);
    }
}
