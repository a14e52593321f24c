package org.hsa4j.kernel;

/**
 * A kernel symbol of a frozen executable ({@code hsa_executable_symbol_t}) with the values
 * {@code hsa_executable_symbol_get_info} reports for it.
 *
 * @param name               the symbol name
 * @param kernelObject       the kernel object handle for dispatch packets
 * @param kernargSegmentSize kernarg bytes
 * @param groupSegmentSize   static group segment bytes
 * @param privateSegmentSize private bytes per work-item
 * @param barriers           true when the kernel uses workgroup barriers
 */
public record ExecutableSymbol(String name, long kernelObject, int kernargSegmentSize, int groupSegmentSize,
                               int privateSegmentSize, boolean barriers) {
}
