#!/bin/sh
# Build, sign, notarize and staple Batchline-<version>-macos.dmg (see packaging/README.md).
# Run from the repository root on macOS 12+ (Apple silicon builds arm64, Intel builds x86_64).
# Signing needs: BATCHLINE_CODESIGN_IDENTITY="Developer ID Application: Name (TEAMID)" and a
# notarytool keychain profile named in BATCHLINE_NOTARY_PROFILE (xcrun notarytool
# store-credentials). Without them the app is ad-hoc signed and not notarized (local use only).
set -eu
version=$(sed -n 's/^__version__ = "\(.*\)"/\1/p' core/__init__.py)
dmg="dist/Batchline-$version-macos-$(uname -m).dmg"
identity=${BATCHLINE_CODESIGN_IDENTITY:-}
profile=${BATCHLINE_NOTARY_PROFILE:-}

test -d .venv || python3 -m venv .venv
.venv/bin/python -m pip install --quiet -e '.[dev]' -r packaging/requirements-build.txt dmgbuild==1.6.7
# PyInstaller signs every binary, then the .app (hardened runtime + timestamp with an identity).
.venv/bin/python -m PyInstaller --noconfirm --clean --distpath dist --workpath build/pyinstaller \
  packaging/batchline.spec
codesign --verify --deep --strict --verbose=2 dist/Batchline.app

# The windowed app has no console: the self-test writes its report to a file.
dist/Batchline.app/Contents/MacOS/Batchline --self-test --report build/self-test/macos.json
cat build/self-test/macos.json

if [ -n "$identity" ] && [ -n "$profile" ]; then
  # Notarize the app itself first, so its ticket can be stapled for offline first launch.
  ditto -c -k --keepParent dist/Batchline.app build/Batchline.zip
  xcrun notarytool submit build/Batchline.zip --keychain-profile "$profile" --wait
  xcrun stapler staple dist/Batchline.app
fi

rm -f "$dmg"
.venv/bin/dmgbuild -s packaging/macos/dmg_settings.py -D app=dist/Batchline.app "Batchline" "$dmg"

if [ -n "$identity" ] && [ -n "$profile" ]; then
  codesign --sign "$identity" --timestamp "$dmg"
  xcrun notarytool submit "$dmg" --keychain-profile "$profile" --wait
  xcrun stapler staple "$dmg"
  spctl --assess --type open --context context:primary-signature --verbose=2 "$dmg"
  spctl --assess --type execute --verbose=2 dist/Batchline.app
fi
echo "$dmg"
