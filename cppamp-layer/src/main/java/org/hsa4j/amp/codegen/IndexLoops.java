package org.hsa4j.amp.codegen;

import java.io.IOException;
import java.io.InputStream;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.invoke.MethodHandles;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * The fast path of untiled kernels: one loop class per kernel class.
 *
 * <p>The runtime's plain work-item loop calls {@code Kernel.execute} once per work-item from a call
 * site that every kernel in the process shares; that site is megamorphic, so the JIT cannot inline
 * the kernel and each work-item costs an interface dispatch plus a {@code WorkItem} round trip.
 * Instead the layer dispatches a grid of contiguous ranges and runs each range in
 * {@link IndexLoop#run}, whose inner call {@code kernel.run(new Index(i))} must see exactly one
 * kernel class to be inlined (and the {@code Index} scalar-replaced).
 *
 * <p>So every kernel class gets its own copy of the loop: the class file of
 * {@link IndexLoopTemplate} is parsed once with the {@code java.lang.classfile} API (which also
 * checks that it is what we expect) and defined again as a hidden class for each kernel class.
 * Each hidden copy has its own methods, hence its own type profiles, so its call site stays
 * monomorphic. Copies are cached per kernel class in a {@link ClassValue} (lambda classes are
 * per call site, so a program has as many copies as it has kernel lambdas) and are unloaded with
 * the kernel class. A copy holds no state: captured values stay in the kernel object, which only
 * the dispatch references.
 */
public final class IndexLoops {
    private static final byte[] TEMPLATE = loadTemplate();

    private static final ClassValue<IndexLoop> LOOPS = new ClassValue<>() {
        @Override
        protected IndexLoop computeValue(Class<?> kernelClass) {
            try {
                MethodHandles.Lookup copy = MethodHandles.lookup().defineHiddenClass(TEMPLATE, true);
                return (IndexLoop) copy.findConstructor(copy.lookupClass(),
                        java.lang.invoke.MethodType.methodType(void.class)).invoke();
            } catch (Throwable t) {
                throw new HsaException(HsaStatus.ERROR, "cannot make the loop for " + kernelClass.getName(), t);
            }
        }
    };

    private IndexLoops() {
    }

    /** The loop copy for kernels of class {@code kernelClass}. */
    public static IndexLoop forKernelClass(Class<?> kernelClass) {
        return LOOPS.get(kernelClass);
    }

    private static byte[] loadTemplate() {
        String name = IndexLoopTemplate.class.getSimpleName() + ".class";
        try (InputStream in = IndexLoopTemplate.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("class file " + name + " not found");
            }
            byte[] bytes = in.readAllBytes();
            ClassModel model = ClassFile.of().parse(bytes);
            if (!model.thisClass().asSymbol().equals(IndexLoopTemplate.class.describeConstable().orElseThrow())
                    || model.methods().stream().noneMatch(m -> m.methodName().equalsString("run1"))) {
                throw new IllegalStateException(name + " is not the loop template");
            }
            return bytes;
        } catch (IOException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
