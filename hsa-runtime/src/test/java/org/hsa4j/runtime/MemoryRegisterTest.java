package org.hsa4j.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/** hsa_memory_register / deregister: the application's own native memory as SVM. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MemoryRegisterTest {
    private HsaRuntime rt;
    private Arena arena;

    @BeforeEach
    void start() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build());
        arena = Arena.ofShared();
    }

    @AfterEach
    void stop() {
        rt.close();
        arena.close();
    }

    @Test
    void shouldMakeTheApplicationsMemoryAddressableAtItsOwnAddress() {
        MemorySegment mine = arena.allocate(256, 8);
        long address = rt.memoryRegister(mine);
        assertEquals(mine.address(), address);
        rt.svm().setInt(address + 8, 1234);
        assertEquals(1234, mine.get(ValueLayout.JAVA_INT, 8));
    }

    @Test
    void shouldLetAKernelWriteRegisteredMemory() {
        MemorySegment mine = arena.allocate(64, 8);
        long address = rt.memoryRegister(mine);
        long kernel = rt.createExecutable().define("store", KernelDescriptor.EMPTY,
                wi -> wi.svm().setInt(address, 42)).freeze().symbol("store").kernelObject();
        Queue q = rt.gpuAgent().createQueue(16, QueueType.SINGLE, null);
        q.dispatch(kernel, 1, 1).join();
        assertEquals(42, mine.get(ValueLayout.JAVA_INT, 0));
    }

    @Test
    void shouldFaultOnceDeregistered() {
        MemorySegment mine = arena.allocate(64, 8);
        long address = rt.memoryRegister(mine);
        rt.memoryDeregister(address);
        HsaException e = assertThrows(HsaException.class, () -> rt.svm().getInt(address));
        assertEquals(HsaStatus.MEMORY_FAULT, e.status());
    }

    @Test
    void shouldRefuseOverlappingRegistrations() {
        MemorySegment mine = arena.allocate(128, 8);
        rt.memoryRegister(mine);
        HsaException e = assertThrows(HsaException.class, () -> rt.memoryRegister(mine.asSlice(64, 32)));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
    }

    @Test
    void shouldRefuseHeapMemory() {
        HsaException e = assertThrows(HsaException.class, () -> rt.memoryRegister(MemorySegment.ofArray(new byte[16])));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
    }

    @Test
    void shouldRefuseToDeregisterAnAddressNeverRegistered() {
        long host = rt.hostMalloc(64);
        assertEquals(HsaStatus.INVALID_ARGUMENT, assertThrows(HsaException.class, () -> rt.memoryDeregister(host)).status());
    }
}
