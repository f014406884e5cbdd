package io.mvbt.directory;

/** Sizes of the long tests: {@code -Dmvbt.profile=short} (CI, the default) or {@code long}. */
final class Profile {
    private Profile() {
    }

    static boolean isLong() {
        return "long".equals(System.getProperty("mvbt.profile"));
    }

    static int size(String property, int shortRun, int longRun) {
        return Integer.getInteger(property, isLong() ? longRun : shortRun);
    }
}
