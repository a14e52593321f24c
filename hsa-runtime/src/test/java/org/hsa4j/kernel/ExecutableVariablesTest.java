package org.hsa4j.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.hsa4j.memory.SegmentKind;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.runtime.RuntimeConfig;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Global and readonly variables, executable state and validation. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExecutableVariablesTest {
    private HsaRuntime rt;

    @BeforeEach
    void start() {
        rt = HsaRuntime.init(RuntimeConfig.builder().computeUnits(1).build());
    }

    @AfterEach
    void stop() {
        rt.close();
    }

    /** A code object that refers to a variable nobody defines. */
    static final class NeedsTable {
        @ExternalVariable("table")
        static long table;

        @KernelSymbol
        static void read(WorkItem wi) {
            wi.svm().getInt(table);
        }
    }

    /** A code object whose external variable field is final. */
    static final class FinalReference {
        @ExternalVariable("table")
        static final long TABLE = 0;

        @KernelSymbol
        static void read(WorkItem wi) {
        }
    }

    @Test
    void shouldReportAGlobalVariableSymbol() {
        long address = rt.hostMalloc(256);
        ExecutableSymbol s = rt.createExecutable().defineGlobalVariable("table", address + 64).freeze().symbol("table");
        assertEquals(SymbolKind.VARIABLE, s.kind());
        assertEquals(address + 64, s.variableAddress());
        assertEquals(192, s.variableSize(), "from the address to the end of its allocation");
        assertEquals(SegmentKind.GLOBAL, s.variableSegment());
        assertEquals(VariableAllocation.PROGRAM, s.variableAllocation());
        assertEquals(-1, s.agentIndex());
    }

    @Test
    void shouldReportAReadonlyAgentVariableSymbol() {
        int gpu = rt.gpuAgent().index();
        ExecutableSymbol s = rt.createExecutable().defineReadonlyVariable(gpu, "lut", rt.hostMalloc(64)).freeze()
                .symbol("lut");
        assertEquals(SegmentKind.READONLY, s.variableSegment());
        assertEquals(VariableAllocation.AGENT, s.variableAllocation());
        assertEquals(gpu, s.agentIndex());
    }

    @Test
    void shouldRefuseACodeObjectWhoseVariableIsUndefinedAndDefineNothing() {
        Executable exe = rt.createExecutable();
        HsaException e = assertThrows(HsaException.class, () -> exe.loadCodeObject(NeedsTable.class));
        assertEquals(HsaStatus.VARIABLE_UNDEFINED, e.status());
        assertTrue(e.getMessage().contains("table"), e.getMessage());
        assertEquals(List.of(), exe.freeze().symbols());
    }

    @Test
    void shouldRefuseAFinalExternalVariableField() {
        Executable exe = rt.createExecutable().defineGlobalVariable("table", rt.hostMalloc(8));
        assertEquals(HsaStatus.INVALID_CODE_OBJECT,
                assertThrows(HsaException.class, () -> exe.loadCodeObject(FinalReference.class)).status());
    }

    @Test
    void shouldSetTheExternalVariableFieldAtLoad() {
        long table = rt.hostMalloc(16);
        rt.createExecutable().defineGlobalVariable("table", table).loadCodeObject(NeedsTable.class);
        assertEquals(table, NeedsTable.table);
    }

    @Test
    void shouldRefuseAVariableOutsideAnyAllocation() {
        HsaException e = assertThrows(HsaException.class,
                () -> rt.createExecutable().defineGlobalVariable("nowhere", 0x1234));
        assertEquals(HsaStatus.INVALID_ARGUMENT, e.status());
    }

    @Test
    void shouldRefuseAVariableNamedAsAKernel() {
        Executable exe = rt.createExecutable().defineGlobalVariable("read", rt.hostMalloc(8));
        assertEquals(HsaStatus.VARIABLE_ALREADY_DEFINED, assertThrows(HsaException.class,
                () -> exe.defineGlobalVariable("table", rt.hostMalloc(8)).loadCodeObject(NeedsTable.class)).status());
    }

    @Test
    void shouldRefuseAVariableDefinedAfterFreeze() {
        Executable exe = rt.createExecutable().freeze();
        assertEquals(HsaStatus.FROZEN_EXECUTABLE,
                assertThrows(HsaException.class, () -> exe.defineGlobalVariable("late", rt.hostMalloc(8))).status());
    }

    @Test
    void shouldReportItsState() {
        Executable exe = rt.createExecutable();
        assertEquals(ExecutableState.UNFROZEN, exe.state());
        assertEquals(ExecutableState.FROZEN, exe.freeze().state());
    }

    @Test
    void shouldValidateAnExecutableWhoseMemoryIsLive() {
        Executable exe = rt.createExecutable().defineGlobalVariable("table", rt.hostMalloc(8))
                .loadCodeObject(NeedsTable.class).freeze();
        assertEquals(List.of(), exe.validate());
    }

    @Test
    void shouldReportAVariableWhoseMemoryWasFreed() {
        long table = rt.hostMalloc(8);
        Executable exe = rt.createExecutable().defineGlobalVariable("table", table).freeze();
        rt.free(table);
        List<String> problems = exe.validate();
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.get(0).contains("table"), problems.toString());
        assertEquals(0, exe.symbol("table").variableSize());
    }
}
