# Build the Windows installer: venv, PyInstaller onedir, bundle self-test, Inno Setup.
# Run from the repository root in PowerShell on Windows 10/11 x64 with Python 3.11-3.13 and
# Inno Setup 6 (iscc.exe on PATH, or in its default folder):
#   powershell -ExecutionPolicy Bypass -File packaging\windows\build.ps1
$ErrorActionPreference = "Stop"
Set-Location (Join-Path $PSScriptRoot "..\..")

$version = (Select-String -Path core\__init__.py -Pattern '__version__ = "(.*)"').Matches[0].Groups[1].Value
if (-not (Test-Path .venv)) { py -3.11 -m venv .venv }
.venv\Scripts\python -m pip install --quiet -e ".[dev]" -r packaging\requirements-build.txt
.venv\Scripts\python -m PyInstaller --noconfirm --clean --distpath dist --workpath build\pyinstaller packaging\batchline.spec

# The windowed exe has no console: the self-test writes its report to a file.
$report = "build\self-test\windows.json"
$proc = Start-Process -FilePath dist\Batchline\Batchline.exe -ArgumentList "--self-test", "--report", $report -Wait -PassThru
Get-Content $report
if ($proc.ExitCode -ne 0) { throw "bundle self-test failed (exit $($proc.ExitCode))" }

$iscc = (Get-Command iscc.exe -ErrorAction SilentlyContinue).Source
if (-not $iscc) { $iscc = "${env:ProgramFiles(x86)}\Inno Setup 6\ISCC.exe" }
& $iscc "/DAppVersion=$version" packaging\windows\batchline.iss
if ($LASTEXITCODE -ne 0) { throw "iscc failed" }
Write-Host "dist\Batchline-$version-windows-x64-setup.exe"
