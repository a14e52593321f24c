package org.hsa4j.kernel;

import java.util.List;

/**
 * {@code hsa_loaded_code_object_t}: what an agent's {@link CodeObjectLoader} made of a code object
 * for an {@link Executable}: its kernels, which the executable lists as symbols of that agent,
 * until the executable is destroyed and {@link #unload()}s it.
 */
public interface LoadedCodeObject {
    /** A code object whose kernels the executable itself holds (the worker-pool agents' Java kernels). */
    LoadedCodeObject IN_EXECUTABLE = new LoadedCodeObject() {
        @Override
        public List<AgentKernel> kernels() {
            return List.of();
        }

        @Override
        public List<String> validate() {
            return List.of();
        }

        @Override
        public void unload() {
        }
    };

    /** The kernels the agent loaded, in the code object's order. */
    List<AgentKernel> kernels();

    /** What would make a dispatch of these kernels fail, one line per problem; empty when none. */
    List<String> validate();

    /** Releases the agent's copy; its kernel objects become invalid. Idempotent, bounded, never throws. */
    void unload();
}
