/**
 * A user's module on the module path: it requires only the C++AMP layer, which brings the runtime
 * with it. Its tiled kernel runs as work-item loops because {@code ModularConsumer} hands the layer
 * its lookup ({@code Amp.grantTileCompiler}); its package is opened to the runtime only for the
 * code object whose {@code @KernelSymbol} methods the runtime binds.
 */
module org.hsa4j.consumer.modular {
    requires org.hsa4j.amp;

    opens org.hsa4j.consumer.modular to org.hsa4j.runtime;
}
