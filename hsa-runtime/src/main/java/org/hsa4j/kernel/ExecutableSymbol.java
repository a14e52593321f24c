package org.hsa4j.kernel;

import org.hsa4j.memory.SegmentKind;

/**
 * A symbol of a frozen executable ({@code hsa_executable_symbol_t}) with the values
 * {@code hsa_executable_symbol_get_info} reports for it. Kernel fields are zero for a variable,
 * variable fields zero (segment and allocation null) for a kernel.
 *
 * @param name               the symbol name
 * @param kind               kernel or variable
 * @param kernelObject       the kernel object handle for dispatch packets
 * @param kernargSegmentSize kernarg bytes
 * @param kernargSegmentAlignment kernarg buffer alignment: 16, or a larger parameter alignment
 * @param groupSegmentSize   static group segment bytes
 * @param privateSegmentSize private bytes per work-item
 * @param barriers           true when the kernel uses workgroup barriers
 * @param variableAddress    the variable's SVM address
 * @param variableSize       the variable's bytes: from its address to the end of its allocation
 * @param variableSegment    GLOBAL or READONLY
 * @param variableAllocation one copy per agent or per program
 * @param agentIndex         the agent an AGENT variable or an agent's kernel belongs to ({@code Agent.index()});
 *                           -1 for program variables and the Java kernels every worker-pool agent runs
 */
public record ExecutableSymbol(String name, SymbolKind kind, long kernelObject, int kernargSegmentSize,
                               int kernargSegmentAlignment, int groupSegmentSize, int privateSegmentSize, boolean barriers,
                               long variableAddress, long variableSize, SegmentKind variableSegment,
                               VariableAllocation variableAllocation, int agentIndex) {

    /** The alignment of a Java kernel's kernarg segment: the spec's minimum. */
    static final int KERNARG_ALIGNMENT = 16;

    static ExecutableSymbol kernel(String name, long kernelObject, KernelDescriptor d) {
        return new ExecutableSymbol(name, SymbolKind.KERNEL, kernelObject, d.kernargSegmentSize(), KERNARG_ALIGNMENT,
                d.groupSegmentSize(), d.privateSegmentSize(), d.barriers(), 0, 0, null, null, -1);
    }

    static ExecutableSymbol agentKernel(AgentKernel k, int agentIndex) {
        return new ExecutableSymbol(k.name(), SymbolKind.KERNEL, k.kernelObject(), k.kernargSegmentSize(),
                k.kernargSegmentAlignment(), k.groupSegmentSize(), k.privateSegmentSize(), false, 0, 0, null, null,
                agentIndex);
    }

    static ExecutableSymbol variable(String name, long address, long size, SegmentKind segment,
                                     VariableAllocation allocation, int agentIndex) {
        return new ExecutableSymbol(name, SymbolKind.VARIABLE, 0, 0, 0, 0, 0, false, address, size, segment,
                allocation, agentIndex);
    }
}
