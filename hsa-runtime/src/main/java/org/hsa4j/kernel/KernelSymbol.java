package org.hsa4j.kernel;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a {@code static void name(WorkItem)} method as a kernel symbol of its class's code
 * object, for {@link Executable#loadCodeObject(Class)}.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface KernelSymbol {
    /** The symbol name; the method name when empty. */
    String name() default "";

    /** Kernarg segment bytes. */
    int kernargSize() default 0;

    /** Static group segment bytes per workgroup. */
    int groupSegmentSize() default 0;

    /** Private segment bytes per work-item. */
    int privateSegmentSize() default 0;

    /** True when the kernel uses workgroup barriers. */
    boolean barriers() default false;
}
