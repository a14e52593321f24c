/**
 * The C++AMP-like layer over the HSA runtime: accelerators, extents and tiles, array views,
 * {@code parallel_for_each} and completion futures. Start with {@link org.hsa4j.amp.Amp}.
 *
 * <p>{@code org.hsa4j.amp.codegen} (the tiled-kernel compiler and the generated index loops) is not
 * exported. The tile compiler defines a tiled kernel's work-item loops as a hidden class nested in
 * the kernel's own class, so a module that writes tiled kernels hands the layer its lookup once
 * ({@code Amp.grantTileCompiler(MethodHandles.lookup())}); without it they run on virtual threads.
 */
module org.hsa4j.amp {
    requires transitive org.hsa4j.runtime;

    exports org.hsa4j.amp;
}
