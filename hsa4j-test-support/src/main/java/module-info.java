/** Helpers for users' jcstress tests against hsa4j: SVM slots, signal rings and bounded waits. */
module org.hsa4j.testsupport {
    requires transitive org.hsa4j.runtime;

    exports org.hsa4j.testsupport;
}
