; Inno Setup 6 script: a per-user Windows installer for the PyInstaller onedir dist\Batchline.
; Build (from the repository root, after PyInstaller; see packaging\README.md):
;   iscc /DAppVersion=0.1.0 packaging\windows\batchline.iss
; Output: dist\Batchline-<version>-windows-x64-setup.exe
; Installs without administrator rights into %LOCALAPPDATA%\Programs\Batchline (an administrator
; may choose "all users" in the dialog, which installs into Program Files).

#define AppName "Batchline"
#ifndef AppVersion
  #define AppVersion "0.1.0"
#endif
#define AppPublisher "Batchline contributors"
#define AppURL "https://github.com/batchline/batchline"
#define AppExeName "Batchline.exe"
#define RepoRoot AddBackslash(SourcePath) + "..\.."

[Setup]
; Keep AppId forever: upgrades and the uninstaller find earlier installs by it.
AppId={{C760372C-A3A0-4C41-BF4D-8E200283E624}
AppName={#AppName}
AppVersion={#AppVersion}
AppVerName={#AppName} {#AppVersion}
AppPublisher={#AppPublisher}
AppPublisherURL={#AppURL}
AppSupportURL={#AppURL}
VersionInfoVersion={#AppVersion}
DefaultDirName={autopf}\{#AppName}
DefaultGroupName={#AppName}
DisableProgramGroupPage=yes
; Per-user install, no UAC prompt; "all users" stays available to administrators.
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
MinVersion=10.0
OutputDir={#RepoRoot}\dist
OutputBaseFilename={#AppName}-{#AppVersion}-windows-x64-setup
SetupIconFile={#RepoRoot}\resources\batchline.ico
UninstallDisplayIcon={app}\{#AppExeName}
UninstallDisplayName={#AppName}
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern
CloseApplications=yes
RestartApplications=no
; Sign the installer and uninstaller when a "signtool" sign tool is configured in the IDE or
; passed to iscc (/Ssigntool=...); see packaging\README.md.
#ifdef SignTool
SignTool=signtool
SignedUninstaller=yes
#endif

[Languages]
Name: "english"; MessagesFile: "compiler:Default.isl"

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[InstallDelete]
; An upgrade replaces the whole bundle: no stale libraries from an older version.
Type: filesandordirs; Name: "{app}\_internal"

[Files]
Source: "{#RepoRoot}\dist\Batchline\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\{#AppName}"; Filename: "{app}\{#AppExeName}"; Comment: "Run batches of ComfyUI jobs"
Name: "{autodesktop}\{#AppName}"; Filename: "{app}\{#AppExeName}"; Tasks: desktopicon

[Run]
Filename: "{app}\{#AppExeName}"; Description: "{cm:LaunchProgram,{#AppName}}"; Flags: nowait postinstall skipifsilent

[UninstallDelete]
; Only the program folder: jobs, settings (%LOCALAPPDATA%\Batchline) and pictures stay.
Type: filesandordirs; Name: "{app}"
