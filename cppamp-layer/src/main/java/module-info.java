/**
 * The C++AMP-like layer over the HSA runtime: accelerators, extents and tiles, array views,
 * {@code parallel_for_each} and completion futures. Start with {@link org.hsa4j.amp.Amp}.
 *
 * <p>{@code org.hsa4j.amp.codegen} (the tiled-kernel compiler and the generated index loops) is not
 * exported. A tiled kernel's lambda is compiled into a hidden class nested in the lambda's own
 * class, so a module that writes tiled kernels opens their package to this module
 * ({@code opens my.kernels to org.hsa4j.amp}).
 */
module org.hsa4j.amp {
    requires transitive org.hsa4j.runtime;

    exports org.hsa4j.amp;
}
