/**
 * NVIDIA GPUs as HSA kernel agents, found by the runtime through its {@code AgentProvider} service.
 * The driver bindings ({@code org.hsa4j.cuda.driver}) and the litmus runner
 * ({@code org.hsa4j.cuda.litmus}, started as {@code -m org.hsa4j.cuda/org.hsa4j.cuda.litmus.LitmusMain})
 * are not exported. Calls the CUDA driver and NVRTC through the foreign linker:
 * pass {@code --enable-native-access=org.hsa4j.runtime,org.hsa4j.cuda}.
 */
module org.hsa4j.cuda {
    requires transitive org.hsa4j.runtime;

    exports org.hsa4j.cuda;

    provides org.hsa4j.runtime.AgentProvider with org.hsa4j.cuda.CudaAgentProvider;
}
