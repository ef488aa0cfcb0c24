/** Brand marks Semi's icon set does not include; sized like Semi icons (1em, currentColor where apt). */

export function WeChatIcon() {
  return (
    <svg width="1em" height="1em" viewBox="0 0 24 24" aria-hidden="true" fill="#07c160">
      <path d="M9.1 3C4.9 3 1.5 5.8 1.5 9.3c0 2 1.1 3.7 2.8 4.9l-.7 2.1 2.5-1.3c.9.3 1.9.4 2.9.4h.5a5.8 5.8 0 0 1-.2-1.6c0-3.4 3.2-6.1 7.2-6.1h.5C16.3 4.9 13 3 9.1 3Zm-2.6 3.4a1 1 0 1 1 0 2 1 1 0 0 1 0-2Zm5.2 0a1 1 0 1 1 0 2 1 1 0 0 1 0-2Z" />
      <path d="M22.5 13.8c0-2.9-2.9-5.3-6.4-5.3s-6.4 2.4-6.4 5.3 2.9 5.3 6.4 5.3c.7 0 1.5-.1 2.2-.3l2 1.1-.5-1.8c1.6-1 2.7-2.5 2.7-4.3Zm-8.5-1a.9.9 0 1 1 0-1.7.9.9 0 0 1 0 1.7Zm4.3 0a.9.9 0 1 1 0-1.7.9.9 0 0 1 0 1.7Z" />
    </svg>
  );
}

export function LinuxDoIcon() {
  return (
    <svg width="1em" height="1em" viewBox="0 0 24 24" aria-hidden="true">
      <clipPath id="mg-linuxdo-clip">
        <circle cx="12" cy="12" r="10" />
      </clipPath>
      <g clipPath="url(#mg-linuxdo-clip)">
        <rect x="2" y="2" width="20" height="7" fill="#1c1c1e" />
        <rect x="2" y="9" width="20" height="6" fill="#f0f0f0" />
        <rect x="2" y="15" width="20" height="7" fill="#ffb003" />
      </g>
      <circle cx="12" cy="12" r="10" fill="none" stroke="var(--semi-color-border)" strokeWidth="0.8" />
    </svg>
  );
}

export function TelegramIcon() {
  return (
    <svg width="1em" height="1em" viewBox="0 0 24 24" aria-hidden="true">
      <circle cx="12" cy="12" r="10" fill="#2aabee" />
      <path
        d="m6.6 11.8 9.6-3.7c.4-.2.9.1.7.8l-1.6 7.7c-.1.5-.5.7-1 .4l-2.6-1.9-1.3 1.2c-.1.1-.3.2-.5.2l.2-2.7 4.9-4.4c.2-.2 0-.3-.3-.1l-6 3.8-2.6-.8c-.6-.2-.6-.6.1-.9Z"
        fill="#fff"
      />
    </svg>
  );
}
