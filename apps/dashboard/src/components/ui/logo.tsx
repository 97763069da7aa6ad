export function Logo() {
  return (
    <span className="logo">
      <svg className="logo-mark" viewBox="0 0 32 32" aria-hidden="true" focusable="false">
        <rect width="32" height="32" rx="7" />
        <path d="M8 11h16M8 21h16M12 11l8 10" />
      </svg>
      <span className="logo-text">Switchyard</span>
    </span>
  );
}
