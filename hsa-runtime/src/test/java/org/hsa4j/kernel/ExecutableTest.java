package org.hsa4j.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.hsa4j.memory.Svm;
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

/** The executable life cycle: define, load code objects, freeze, look up, destroy. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExecutableTest {
    private HsaRuntime rt;

    @BeforeEach
    void start() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build());
    }

    @AfterEach
    void stop() {
        rt.close();
    }

    /** A code object: two kernels and a helper that is not one. */
    static final class Kernels {
        /** Writes kernarg 1 into the u64 at kernarg 0. */
        @KernelSymbol(kernargSize = 16)
        static void store(WorkItem wi) {
            wi.svm().setLong(wi.kernarg().get(ValueLayout.JAVA_LONG, 0), wi.kernarg().get(ValueLayout.JAVA_LONG, 8));
        }

        /** A named kernel with segments and barriers. */
        @KernelSymbol(name = "tile_sum", kernargSize = 8, groupSegmentSize = 256, privateSegmentSize = 16,
                barriers = true)
        private static void tileSum(WorkItem wi) {
            wi.barrier().await();
        }

        static void helper(WorkItem wi) {
            throw new AssertionError("not a kernel");
        }
    }

    /** A code object whose kernel is an instance method. */
    static final class InstanceKernel {
        @KernelSymbol
        void notStatic(WorkItem wi) {
        }
    }

    /** A code object whose kernel returns a value. */
    static final class ReturningKernel {
        @KernelSymbol
        static void fine(WorkItem wi) {
        }

        @KernelSymbol
        static int returns(WorkItem wi) {
            return 0;
        }
    }

    /** A code object whose kernel takes the wrong parameters. */
    static final class WrongParameters {
        @KernelSymbol
        static void twoArgs(WorkItem wi, int extra) {
        }
    }

    /** A code object that gives two kernels the same symbol name. */
    static final class DuplicateNames {
        @KernelSymbol(name = "same")
        static void first(WorkItem wi) {
        }

        @KernelSymbol(name = "same")
        static void second(WorkItem wi) {
        }
    }

    /** A class with no kernel at all. */
    static final class NoKernels {
        static void notAnnotated(WorkItem wi) {
        }
    }

    @Test
    void shouldLoadEveryKernelSymbolOfACodeObject() {
        Executable exe = rt.createExecutable().loadCodeObject(Kernels.class).freeze();
        assertEquals(List.of("store", "tile_sum"), exe.symbols().stream().map(ExecutableSymbol::name).sorted().toList());
        assertEquals(HsaStatus.INVALID_SYMBOL_NAME, assertThrows(HsaException.class, () -> exe.symbol("helper")).status());
    }

    @Test
    void shouldReportTheDescriptorOfALoadedSymbol() {
        ExecutableSymbol s = rt.createExecutable().loadCodeObject(Kernels.class).freeze().symbol("tile_sum");
        assertEquals("tile_sum", s.name());
        assertEquals(8, s.kernargSegmentSize());
        assertEquals(256, s.groupSegmentSize());
        assertEquals(16, s.privateSegmentSize());
        assertTrue(s.barriers());
        Svm svm = rt.svm();
        assertEquals(8, svm.getInt(s.kernelObject() + KernelObjectDescriptor.KERNARG_SEGMENT_SIZE));
        assertEquals(256, svm.getInt(s.kernelObject() + KernelObjectDescriptor.GROUP_SEGMENT_SIZE));
        assertEquals(16, svm.getInt(s.kernelObject() + KernelObjectDescriptor.PRIVATE_SEGMENT_SIZE));
        assertEquals(KernelObjectDescriptor.FLAG_BARRIERS, svm.getInt(s.kernelObject() + KernelObjectDescriptor.FLAGS));
    }

    @Test
    void shouldRunALoadedKernel() {
        ExecutableSymbol s = rt.createExecutable().loadCodeObject(Kernels.class).freeze().symbol("store");
        long out = rt.hostMalloc(8);
        long kernarg = rt.kernargPool().allocate(16);
        rt.svm().setLong(kernarg, out);
        rt.svm().setLong(kernarg + 8, 0xC0FFEE);
        Queue q = rt.gpuAgent().createQueue(16, QueueType.SINGLE, null);
        Signal done = rt.createSignal(1);
        Submit.kernel(q, s.kernelObject()).kernarg(kernarg).completion(done).submit();
        Await.completion(done);
        assertEquals(0xC0FFEE, rt.svm().getLong(out));
    }

    @Test
    void shouldRefuseACodeObjectWithAnInstanceKernel() {
        assertInvalidCodeObject(InstanceKernel.class);
    }

    @Test
    void shouldRefuseACodeObjectWithAKernelThatReturnsAValue() {
        assertInvalidCodeObject(ReturningKernel.class);
    }

    @Test
    void shouldRefuseACodeObjectWithAKernelOfTheWrongParameters() {
        assertInvalidCodeObject(WrongParameters.class);
    }

    @Test
    void shouldRefuseACodeObjectWithoutKernels() {
        assertInvalidCodeObject(NoKernels.class);
    }

    private void assertInvalidCodeObject(Class<?> codeObject) {
        Executable exe = rt.createExecutable();
        HsaException e = assertThrows(HsaException.class, () -> exe.loadCodeObject(codeObject));
        assertEquals(HsaStatus.INVALID_CODE_OBJECT, e.status());
        exe.freeze();
        assertEquals(List.of(), exe.symbols(), "a refused code object must define nothing");
    }

    @Test
    void shouldRefuseACodeObjectThatNamesTwoKernelsAlike() {
        Executable exe = rt.createExecutable();
        HsaException e = assertThrows(HsaException.class, () -> exe.loadCodeObject(DuplicateNames.class));
        assertEquals(HsaStatus.VARIABLE_ALREADY_DEFINED, e.status());
        assertEquals(List.of(), exe.freeze().symbols());
    }

    @Test
    void shouldRefuseACodeObjectWhoseKernelIsAlreadyDefined() {
        Executable exe = rt.createExecutable().define("store", KernelDescriptor.EMPTY, wi -> { });
        HsaException e = assertThrows(HsaException.class, () -> exe.loadCodeObject(Kernels.class));
        assertEquals(HsaStatus.VARIABLE_ALREADY_DEFINED, e.status());
        assertEquals(List.of("store"), exe.freeze().symbols().stream().map(ExecutableSymbol::name).toList());
    }

    @Test
    void shouldRefuseDefinitionsAfterFreeze() {
        Executable exe = rt.createExecutable().freeze();
        HsaException e = assertThrows(HsaException.class, () -> exe.define("late", KernelDescriptor.EMPTY, wi -> { }));
        assertEquals(HsaStatus.FROZEN_EXECUTABLE, e.status());
        assertEquals(HsaStatus.FROZEN_EXECUTABLE,
                assertThrows(HsaException.class, () -> exe.loadCodeObject(Kernels.class)).status());
    }

    @Test
    void shouldRefuseDefiningANameTwice() {
        Executable exe = rt.createExecutable().define("k", KernelDescriptor.EMPTY, wi -> { });
        HsaException e = assertThrows(HsaException.class, () -> exe.define("k", KernelDescriptor.EMPTY, wi -> { }));
        assertEquals(HsaStatus.VARIABLE_ALREADY_DEFINED, e.status());
    }

    @Test
    void shouldRefuseSymbolLookupBeforeFreeze() {
        Executable exe = rt.createExecutable().define("k", KernelDescriptor.EMPTY, wi -> { });
        assertFalse(exe.isFrozen());
        assertEquals(HsaStatus.INVALID_EXECUTABLE, assertThrows(HsaException.class, () -> exe.symbol("k")).status());
    }

    @Test
    void shouldRefuseAnUnknownSymbolName() {
        Executable exe = rt.createExecutable().define("k", KernelDescriptor.EMPTY, wi -> { }).freeze();
        assertEquals(HsaStatus.INVALID_SYMBOL_NAME, assertThrows(HsaException.class, () -> exe.symbol("K")).status());
    }

    @Test
    void shouldGiveEveryKernelItsOwnObject() {
        Executable exe = rt.createExecutable().define("a", KernelDescriptor.EMPTY, wi -> { })
                .define("b", KernelDescriptor.EMPTY, wi -> { }).freeze();
        assertNotEquals(exe.symbol("a").kernelObject(), exe.symbol("b").kernelObject());
        assertEquals(exe.symbol("a").kernelObject(), exe.symbol("a").kernelObject());
    }

    @Test
    void shouldRejectADispatchOfADestroyedExecutablesKernel() {
        Executable exe = rt.createExecutable().define("k", KernelDescriptor.EMPTY, wi -> { }).freeze();
        long kernel = exe.symbol("k").kernelObject();
        exe.close();
        Queue q = rt.gpuAgent().createQueue(16, QueueType.SINGLE, null);
        Signal done = rt.createSignal(1);
        Submit.kernel(q, kernel).completion(done).submit();
        HsaException e = assertThrows(HsaException.class, () -> Await.completion(done));
        assertEquals(HsaStatus.INVALID_CODE_OBJECT, e.status());
    }

    @Test
    void shouldRefuseEveryCallOnADestroyedExecutable() {
        Executable exe = rt.createExecutable().define("k", KernelDescriptor.EMPTY, wi -> { }).freeze();
        exe.close();
        exe.close();
        assertEquals(HsaStatus.INVALID_EXECUTABLE, assertThrows(HsaException.class, () -> exe.symbol("k")).status());
        assertEquals(HsaStatus.INVALID_EXECUTABLE,
                assertThrows(HsaException.class, () -> exe.define("x", KernelDescriptor.EMPTY, wi -> { })).status());
        assertEquals(HsaStatus.INVALID_EXECUTABLE, assertThrows(HsaException.class, exe::freeze).status());
    }

    @Test
    void shouldRefuseNegativeSegmentSizes() {
        assertEquals(HsaStatus.INVALID_ARGUMENT,
                assertThrows(HsaException.class, () -> new KernelDescriptor(-1, 0, 0, false)).status());
    }
}
