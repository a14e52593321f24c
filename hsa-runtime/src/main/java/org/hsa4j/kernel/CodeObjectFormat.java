package org.hsa4j.kernel;

/**
 * What a {@link CodeObjectReader} holds, told by its bytes: the JVM's code objects, which the
 * worker-pool agents load, or a CUDA agent's (module hsa-cuda). An agent loads the formats of its
 * own ISA and refuses the others with INCOMPATIBLE_ARGUMENTS ({@link CodeObjectLoader}).
 */
public enum CodeObjectFormat {
    /** One class file ({@code 0xCAFEBABE}). */
    CLASS_FILE(true),
    /** A jar (a zip) of class files. */
    JAR(true),
    /** PTX assembly text: {@code //} comments, then {@code .version}, {@code .target} and the code. */
    PTX(false),
    /** A cubin: an ELF64 image whose machine is CUDA ({@code EM_CUDA}, 190). */
    CUBIN(false),
    /** A fat binary ({@code 0xBA55ED50}): cubins and PTX for several architectures. */
    FATBIN(false);

    private final boolean jvm;

    CodeObjectFormat(boolean jvm) {
        this.jvm = jvm;
    }

    /** True for compiled Java, the worker-pool agents' ISA. */
    public boolean isJvm() {
        return jvm;
    }
}
