package org.hsa4j.kernel;

/** {@code hsa_symbol_kind_t}: what an executable symbol names. */
public enum SymbolKind {
    /** A global or readonly variable. */
    VARIABLE,
    /** A kernel: its symbol has a kernel object for dispatch packets. */
    KERNEL
}
