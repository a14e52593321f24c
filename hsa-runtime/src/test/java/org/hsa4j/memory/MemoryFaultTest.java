package org.hsa4j.memory;

import static org.hsa4j.memory.KernelLauncher.arg;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;

import org.hsa4j.queue.DispatchCompletion;
import org.hsa4j.queue.Queue;
import org.hsa4j.queue.QueueState;
import org.hsa4j.queue.QueueType;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every access through an SVM address is checked: a bad address is a MEMORY_FAULT carrying that
 * address, on the host as an exception and in a kernel through the queue's error callback and the
 * completion signal, never a crash or a hang.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class MemoryFaultTest {
    private HsaRuntime rt;
    private Svm svm;

    @BeforeEach
    void start() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(2).build());
        svm = rt.svm();
    }

    @AfterEach
    void stop() {
        rt.close();
    }

    private static void assertFault(long address, Runnable access) {
        MemoryFaultException e = assertThrows(MemoryFaultException.class, access::run);
        assertEquals(HsaStatus.MEMORY_FAULT, e.status());
        assertEquals(address, e.address(), () -> String.format("fault address of %s", e.getMessage()));
    }

    /** Every kind of access through {@code address}: each must fault with exactly that address. */
    private void assertEveryAccessFaults(long address) {
        assertFault(address, () -> svm.getByte(address));
        assertFault(address, () -> svm.setByte(address, (byte) 1));
        assertFault(address, () -> svm.getShort(address));
        assertFault(address, () -> svm.getInt(address));
        assertFault(address, () -> svm.setInt(address, 1));
        assertFault(address, () -> svm.getLong(address));
        assertFault(address, () -> svm.setLong(address, 1));
        assertFault(address, () -> svm.getFloat(address));
        assertFault(address, () -> svm.setDouble(address, 1));
        assertFault(address, () -> svm.getAddress(address));
        assertFault(address, () -> svm.atomicLoadLong(address, MemoryOrder.ACQUIRE, MemoryScope.SYSTEM));
        assertFault(address, () -> svm.atomicAddInt(address, 1, MemoryOrder.RELAXED, MemoryScope.AGENT));
        assertFault(address, () -> svm.fill(address, 8, (byte) 0));
        assertFault(address, () -> svm.ints(address, 1));
        assertFault(address, () -> svm.segment(address, 1));
    }

    @Test
    void shouldFaultOnTheNullAddress() {
        assertEveryAccessFaults(0);
    }

    @Test
    void shouldFaultOneBytePastTheEndOfAnAllocation() {
        long a = rt.hostMalloc(24);
        svm.setByte(a + 23, (byte) 1);
        assertEveryAccessFaults(a + 24);
    }

    @Test
    void shouldFaultOnAnIntStraddlingTheEnd() {
        long a = rt.hostMalloc(10);
        svm.setShort(a + 8, (short) 1);
        assertFault(a + 8, () -> svm.getInt(a + 8));
        assertFault(a + 7, () -> svm.setInt(a + 7, 1));
    }

    @Test
    void shouldFaultOnALongStraddlingTheEnd() {
        long a = rt.hostMalloc(64);
        svm.setLong(a + 56, 1);
        assertFault(a + 57, () -> svm.getLong(a + 57));
        assertFault(a + 60, () -> svm.setDouble(a + 60, 1));
        assertFault(a + 56, () -> svm.copy(a + 56, a, 9));
    }

    @Test
    void shouldFaultFarPastTheEndWithinTheOffsetField() {
        long a = rt.hostMalloc(64);
        assertFault(a + (1L << 32), () -> svm.getInt(a + (1L << 32)));
        assertFault(a + SvmAddress.OFFSET_MASK - 7, () -> svm.getLong(a + SvmAddress.OFFSET_MASK - 7));
    }

    @Test
    void shouldFaultBeforeTheStartOfAnAllocation() {
        long a = rt.hostMalloc(64);
        assertFault(a - 4, () -> svm.getInt(a - 4));
    }

    @Test
    void shouldFaultThroughAPointerIntoAFreedAllocation() {
        long a = rt.hostMalloc(128);
        svm.setInt(a + 64, 5);
        rt.free(a);
        assertEveryAccessFaults(a + 64);
        assertEveryAccessFaults(a);
    }

    @Test
    void shouldFaultWhenTheGenerationDoesNotMatchTheSlot() {
        long a = rt.hostMalloc(64);
        int otherGeneration = (SvmAddress.generation(a) + 1) & SvmAddress.GENERATION_MASK;
        long forged = SvmAddress.encode(SvmAddress.slot(a), otherGeneration, 8);
        assertEveryAccessFaults(forged);
    }

    @Test
    void shouldFaultOnFabricatedAddresses() {
        assertEveryAccessFaults(0x1000);
        assertEveryAccessFaults(SvmAddress.encode(SvmAddress.MAX_ALLOCATIONS, 0, 64));
        assertEveryAccessFaults(SvmAddress.encode(123_456, 3, 0));
        assertEveryAccessFaults(-8);
        assertEveryAccessFaults(Long.MIN_VALUE);
    }

    @Test
    void shouldKeepTheAllocationIntactAfterAFault() {
        long a = rt.hostMalloc(16);
        svm.setLong(a + 8, 99);
        assertFault(a + 12, () -> svm.setLong(a + 12, -1));
        assertEquals(99, svm.getLong(a + 8));
    }

    @Test
    void shouldFaultOnEveryAddressOnceTheRuntimeIsClosed() {
        long small = rt.hostMalloc(64);
        long large = rt.hostMalloc(2L << 20);
        rt.close();
        assertFault(small, () -> svm.getLong(small));
        assertFault(large + 8, () -> svm.setLong(large + 8, 1));
        assertNull(rt.pointerInfo(small));
        HsaException allocate = assertThrows(HsaException.class, () -> rt.hostMalloc(64));
        assertEquals(HsaStatus.NOT_INITIALIZED, allocate.status());
        HsaException free = assertThrows(HsaException.class, () -> rt.free(small));
        assertEquals(HsaStatus.NOT_INITIALIZED, free.status());
    }

    // ---- in a kernel ----------------------------------------------------------------------------

    /** Dispatches a one-work-item kernel that reads a long at {@code address}; checks the fault reaches callback and signal. */
    private void assertKernelFaults(long address, HsaStatus status, LongConsumer beforeDispatch) {
        CompletableFuture<HsaException> reported = new CompletableFuture<>();
        Queue faulty = rt.gpuAgent().createQueue(64, QueueType.SINGLE, (error, queue) -> reported.complete(error));
        beforeDispatch.accept(address);
        DispatchCompletion done = KernelLauncher.launch(rt, faulty, wi -> wi.svm().getLong(arg(wi, 0)), 1, 1, address);
        HsaException waited = assertThrows(HsaException.class, () -> KernelLauncher.await(done));
        assertEquals(status, waited.status());
        HsaException error = reported.join();
        MemoryFaultException fault = assertInstanceOf(MemoryFaultException.class, error);
        assertEquals(status, fault.status());
        assertEquals(address, fault.address());
        assertEquals(QueueState.ERROR, faulty.state());
    }

    private void assertAnotherQueueStillWorks() {
        long cell = rt.hostMalloc(8);
        svm.setLong(cell, 1);
        Queue healthy = rt.gpuAgent().createQueue(64, QueueType.SINGLE, null);
        KernelLauncher.await(KernelLauncher.launch(rt, healthy,
                wi -> wi.svm().atomicAddLong(arg(wi, 0), 1, MemoryOrder.RELAXED, MemoryScope.SYSTEM), 256, 64, cell));
        assertEquals(257, svm.getLong(cell));
    }

    @Test
    void shouldReportAKernelsNullDereferenceToTheQueue() {
        assertKernelFaults(0, HsaStatus.MEMORY_FAULT, address -> { });
        assertAnotherQueueStillWorks();
    }

    @Test
    void shouldReportAKernelsAccessStraddlingTheEndToTheQueue() {
        long a = rt.hostMalloc(32);
        assertKernelFaults(a + 28, HsaStatus.MEMORY_FAULT, address -> { });
        assertAnotherQueueStillWorks();
    }

    @Test
    void shouldReportAKernelsStalePointerToTheQueue() {
        long a = rt.hostMalloc(32);
        assertKernelFaults(a + 8, HsaStatus.MEMORY_FAULT, address -> rt.free(a));
        assertAnotherQueueStillWorks();
    }

    @Test
    void shouldReportAKernelsFabricatedAddressToTheQueue() {
        assertKernelFaults(SvmAddress.encode(777_777, 5, 40), HsaStatus.MEMORY_FAULT, address -> { });
        assertAnotherQueueStillWorks();
    }

    @Test
    void shouldFailLaterPacketsOfAFaultedQueueInsteadOfRunningThem() {
        CompletableFuture<HsaException> reported = new CompletableFuture<>();
        Queue q = rt.gpuAgent().createQueue(64, QueueType.SINGLE, (error, queue) -> reported.complete(error));
        long cell = rt.hostMalloc(8);
        svm.setLong(cell, 0);
        DispatchCompletion bad = KernelLauncher.launch(rt, q, wi -> wi.svm().getInt(arg(wi, 0)), 1, 1, 0);
        assertThrows(HsaException.class, () -> KernelLauncher.await(bad));
        HsaException e = assertThrows(HsaException.class, () -> KernelLauncher.launch(rt, q,
                wi -> wi.svm().setLong(arg(wi, 0), 1), 1, 1, cell));
        assertEquals(HsaStatus.INVALID_QUEUE, e.status());
        assertEquals(0, svm.getLong(cell));
        assertEquals(HsaStatus.MEMORY_FAULT, reported.join().status());
    }
}
