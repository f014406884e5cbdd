// SPDX-License-Identifier: Apache-2.0
package io.mvbt.testkit;

import java.nio.ByteBuffer;

import io.mvbt.pagestore.PageStore;

/** A page store that passes every call to another; tests override what they need to change. */
public class ForwardingPageStore implements PageStore {
    protected final PageStore pages;

    public ForwardingPageStore(PageStore pages) {
        this.pages = pages;
    }

    @Override
    public void sync() {
        pages.sync();
    }

    @Override
    public void syncPage(long pageNo) {
        pages.syncPage(pageNo);
    }

    @Override
    public int pageSize() {
        return pages.pageSize();
    }

    @Override
    public long pageCount() {
        return pages.pageCount();
    }

    @Override
    public void extend(long newPageCount) {
        pages.extend(newPageCount);
    }

    @Override
    public long appendRun(int n) {
        return pages.appendRun(n);
    }

    @Override
    public void truncate(long newPageCount) {
        pages.truncate(newPageCount);
    }

    @Override
    public long roundUpToGrowthUnit(long n) {
        return pages.roundUpToGrowthUnit(n);
    }

    @Override
    public long runEnd(long pageNo) {
        return pages.runEnd(pageNo);
    }

    @Override
    public int maxRunPages() {
        return pages.maxRunPages();
    }

    @Override
    public long runAddress(long pageNo, int n) {
        return pages.runAddress(pageNo, n);
    }

    @Override
    public long address(long pageNo) {
        return pages.address(pageNo);
    }

    @Override
    public ByteBuffer buffer(long pageNo, int n) {
        return pages.buffer(pageNo, n);
    }

    @Override
    public void write(long pageNo, ByteBuffer source) {
        pages.write(pageNo, source);
    }

    @Override
    public void written(long pageNo, int n) {
        pages.written(pageNo, n);
    }

    @Override
    public boolean durable() {
        return pages.durable();
    }


    @Override
    public String describe() {
        return pages.describe();
    }

    @Override
    public void close() {
        pages.close();
    }
}
