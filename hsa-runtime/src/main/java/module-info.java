/**
 * The HSA runtime: agents, AQL queues and packets, signals, SVM and memory pools, kernels and
 * executables, status codes, tracing and statistics. Start with {@link org.hsa4j.runtime.HsaRuntime}.
 *
 * <p>{@code org.hsa4j.idle} (how the runtime's threads wait) is machinery the sibling modules share,
 * exported to them only. {@code org.hsa4j.agent.spi} (queue backends and the queue factory) and
 * {@code org.hsa4j.runtime.spi} (the agent factory) are what a module that brings its own devices (an
 * {@link org.hsa4j.runtime.AgentProvider}) implements and uses, exported to hsa4j's CUDA module only.
 * {@code org.hsa4j.kernel.spi} (how compute units make their workgroup executors) is not exported. JFR events are written when {@code jdk.jfr} is in the boot layer and skipped
 * otherwise. On the module path, pass {@code --enable-native-access=org.hsa4j.runtime} (SVM is
 * mapped through the foreign linker), and for the opt-in continuation barriers
 * {@code --add-exports java.base/jdk.internal.vm=org.hsa4j.runtime}.
 */
module org.hsa4j.runtime {
    requires java.management;
    requires jdk.management;
    requires static jdk.jfr;

    exports org.hsa4j.agent;
    exports org.hsa4j.kernel;
    exports org.hsa4j.memory;
    exports org.hsa4j.packet;
    exports org.hsa4j.queue;
    exports org.hsa4j.runtime;
    exports org.hsa4j.signal;
    exports org.hsa4j.status;
    exports org.hsa4j.trace;

    exports org.hsa4j.idle to org.hsa4j.amp, org.hsa4j.services, org.hsa4j.cuda;
    exports org.hsa4j.agent.spi to org.hsa4j.cuda;
    exports org.hsa4j.runtime.spi to org.hsa4j.cuda;

    uses org.hsa4j.runtime.AgentProvider;
}
