package org.hsa4j.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.hsa4j.signal.Signal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/** The runtime's signal entry points check their arguments and the runtime's state. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SignalEntryPointsTest {

    private static RuntimeConfig small() {
        return RuntimeConfig.builder().computeUnits(1).build();
    }

    @Test
    void shouldCreateSignalForConsumersOfThisRuntime() {
        try (HsaRuntime rt = HsaRuntime.init(small())) {
            Signal s = rt.createSignal(7, List.of(rt.cpuAgent(), rt.gpuAgent()));
            assertEquals(7, s.loadScacquire());
        }
    }

    @Test
    void shouldRefuseNullConsumerListWithInvalidArgument() {
        try (HsaRuntime rt = HsaRuntime.init(small())) {
            HsaException e = assertThrows(HsaException.class, () -> rt.createSignal(0, null));
            assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
        }
    }

    @Test
    void shouldRefuseConsumerOfAnotherRuntimeWithInvalidAgent() {
        try (HsaRuntime rt = HsaRuntime.init(small()); HsaRuntime other = HsaRuntime.init(small())) {
            HsaException e = assertThrows(HsaException.class, () -> rt.createSignal(0, List.of(other.gpuAgent())));
            assertEquals(HsaStatus.INVALID_AGENT, e.status());
        }
    }

    @Test
    void shouldRefuseSignalLookupAndGroupsAfterShutdown() {
        HsaRuntime rt = HsaRuntime.init(small());
        Signal s = rt.createSignal(1);
        long handle = s.handle();
        rt.close();
        assertEquals(HsaStatus.NOT_INITIALIZED, assertThrows(HsaException.class, () -> rt.signal(handle)).status());
        assertEquals(HsaStatus.NOT_INITIALIZED,
                assertThrows(HsaException.class, () -> rt.createSignalGroup(List.of(s))).status());
    }
}
