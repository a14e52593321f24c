package org.hsa4j.kernel;

/**
 * One kernel of an agent's loaded code object ({@link LoadedCodeObject}) with the values
 * {@code hsa_executable_symbol_get_info} reports for it.
 *
 * @param name                    the symbol name
 * @param kernelObject            the handle the agent's queues accept in a dispatch packet
 * @param kernargSegmentSize      bytes of the kernel's parameters as the spec lays them out
 * @param kernargSegmentAlignment the kernarg buffer's alignment: 16 or the largest parameter alignment
 * @param groupSegmentSize        static group segment bytes per workgroup
 * @param privateSegmentSize      private bytes per work-item
 */
public record AgentKernel(String name, long kernelObject, int kernargSegmentSize, int kernargSegmentAlignment,
                          int groupSegmentSize, int privateSegmentSize) {
}
