#!/bin/sh
# Make dist/Batchline-<version>-linux-<arch>.tar.gz from the onedir dist/Batchline.
# Usage: packaging/linux/tarball.sh VERSION   (run from the repository root, after PyInstaller)
set -eu
version=$1
name="Batchline-$version-linux-$(uname -m)"
here=packaging/linux
stage="build/tarball/$name"
test -x dist/Batchline/Batchline || { echo "tarball.sh: dist/Batchline is missing: run PyInstaller first" >&2; exit 1; }

# The newest glibc symbol version the bundle needs (libraries come from the build host).
glibc=$(find dist/Batchline -type f \( -name '*.so*' -o -name Batchline \) -exec objdump -T {} + 2>/dev/null \
  | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -t. -k1,1n -k2,2n -u | tail -n 1)

rm -rf "build/tarball" "dist/$name.tar.gz"
mkdir -p "$stage"
cp -R dist/Batchline "$stage/Batchline"
cp "$here/batchline.desktop" "$here/install.sh" resources/batchline.png resources/batchline.svg "$stage/"
sed -e "s/@VERSION@/$version/" -e "s/@GLIBC@/${glibc:-2.36}/" "$here/README.txt" > "$stage/README.txt"
chmod 755 "$stage/install.sh"
tar -C build/tarball --owner=0 --group=0 --numeric-owner -czf "dist/$name.tar.gz" "$name"
echo "dist/$name.tar.gz: $(du -h "dist/$name.tar.gz" | cut -f1) (onedir $(du -sh dist/Batchline | cut -f1), needs glibc >= ${glibc:-?})"
