/**
 * A user's module on the module path: it requires only the C++AMP layer, which brings the runtime
 * with it. Its tiled kernel runs as work-item loops because {@code ModularConsumer} hands the layer
 * its lookup ({@code Amp.grantTileCompiler}); no package is opened.
 */
module org.hsa4j.consumer.modular {
    requires org.hsa4j.amp;
}
