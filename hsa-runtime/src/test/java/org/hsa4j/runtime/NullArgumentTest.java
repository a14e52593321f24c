package org.hsa4j.runtime;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;

import org.hsa4j.agent.Agent;
import org.hsa4j.kernel.CodeObjectReader;
import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.queue.QueueDescriptor;
import org.hsa4j.queue.QueueType;
import org.hsa4j.signal.SignalCondition;
import org.hsa4j.signal.WaitState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/** A null where the API needs a value gets an HSA status (INVALID_ARGUMENT for most), never a NullPointerException; free(0) is a no-op. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NullArgumentTest {
    private HsaRuntime rt;

    @BeforeEach
    void start() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build());
    }

    @AfterEach
    void stop() {
        rt.close();
    }

    private static Arguments call(String name, Consumer<HsaRuntime> call) {
        return call(name, HsaStatus.INVALID_ARGUMENT, call);
    }

    private static Arguments call(String name, HsaStatus status, Consumer<HsaRuntime> call) {
        return Arguments.of(Named.of(name, call), status);
    }

    static Stream<Arguments> nullArguments() {
        return Stream.of(
                call("createQueue with a null type", rt -> rt.gpuAgent().createQueue(16, null, null)),
                call("registerAgentDispatchHandler with a null handler",
                        rt -> rt.cpuAgent().registerAgentDispatchHandler(1, null)),
                call("define with a null name", rt -> rt.createExecutable().define(null, KernelDescriptor.EMPTY, wi -> { })),
                call("define with a null descriptor", rt -> rt.createExecutable().define("k", null, wi -> { })),
                call("define with a null kernel", rt -> rt.createExecutable().define("k", KernelDescriptor.EMPTY, null)),
                call("loadCodeObject with a null class", rt -> rt.createExecutable().loadCodeObject((Class<?>) null)),
                call("loadCodeObject with a null reader",
                        rt -> rt.createExecutable().loadCodeObject((CodeObjectReader) null)),
                call("CodeObjectReader.fromBytes with null bytes", rt -> CodeObjectReader.fromBytes(null)),
                call("CodeObjectReader.fromFile with a null path", rt -> CodeObjectReader.fromFile(null)),
                call("defineGlobalVariable with a null name",
                        rt -> rt.createExecutable().defineGlobalVariable(null, rt.hostMalloc(8))),
                call("regions of a null agent", rt -> rt.regions(null)),
                call("memoryAllocate from a null region", rt -> rt.memoryAllocate(null, 64)),
                call("isas of a null agent", rt -> rt.isas(null)),
                call("caches of a null agent", rt -> rt.caches(null)),
                call("isaFromName with a null name", rt -> rt.isaFromName(null)),
                call("systemExtensionSupported with a null extension", rt -> rt.systemExtensionSupported(null, 1, 0)),
                call("createSoftQueue with a null doorbell", rt -> rt.createSoftQueue(rt.regions(rt.cpuAgent()).get(0), 16,
                        QueueType.SINGLE, QueueDescriptor.FEATURE_AGENT_DISPATCH, null)),
                call("symbol with a null name", rt -> rt.createExecutable().freeze().symbol(null)),
                call("addWaiter with a null waiter", rt -> rt.createSignal(1).addWaiter(null)),
                call("removeWaiter with a null waiter", rt -> rt.createSignal(1).removeWaiter(null)),
                call("allowAccess with null agents", rt -> rt.allowAccess(rt.hostMalloc(64), (Agent[]) null)),
                call("allowAccess with a null agent", HsaStatus.INVALID_AGENT, rt -> rt.allowAccess(rt.hostMalloc(64), (Agent) null)),
                call("createSignal with a null consumer", HsaStatus.INVALID_AGENT, rt -> rt.createSignal(1, Arrays.asList((Agent) null))),
                call("createSignalGroup with null", rt -> rt.createSignalGroup(null)),
                call("setAsyncHandler with a null handler",
                        rt -> rt.setAsyncHandler(rt.createSignal(1), SignalCondition.EQ, 0, null)),
                call("wait with a null condition",
                        rt -> rt.createSignal(1).waitScacquire(null, 0, 1, WaitState.ACTIVE)),
                call("deviceMalloc on a null agent", HsaStatus.INVALID_AGENT, rt -> rt.deviceMalloc(null, 64)),
                call("init with a null config", rt -> HsaRuntime.init(null)),
                call("createSignalGroup with a null member", HsaStatus.INVALID_SIGNAL,
                        rt -> rt.createSignalGroup(Arrays.asList(rt.createSignal(1), null))));
    }

    @ParameterizedTest
    @MethodSource("nullArguments")
    void shouldRefuseANullArgumentWithAnHsaStatus(Consumer<HsaRuntime> call, HsaStatus status) {
        HsaException e = assertThrows(HsaException.class, () -> call.accept(rt));
        assertEquals(status, e.status(), e.getMessage());
    }

    @Test
    void shouldTreatFreeingTheNullAddressAsANoOp() {
        long live = rt.hostMalloc(64);
        assertDoesNotThrow(() -> rt.free(0));
        assertDoesNotThrow(() -> rt.free(live));
        assertEquals(HsaStatus.INVALID_ALLOCATION, assertThrows(HsaException.class, () -> rt.free(live)).status());
    }
}
